// Module customization hooks (node:module register) that record the URL of every module loaded after
// registration, and answer the list when asked through the port they were given.
const loaded = [];

export function initialize({ port }) {
  port.on('message', () => port.postMessage([...loaded]));
}

export async function load(url, context, nextLoad) {
  loaded.push(url);
  return nextLoad(url, context);
}
