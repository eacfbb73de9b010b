// Proctoring emulator pages: fetch the roster and the exam roster from the browser, as the real
// service's pages do (spec: roster_url is "fetched client-side by the end user"), and show them.
(function () {
  'use strict';
  var dataElement = document.getElementById('emulator-data');
  if (!dataElement) return;
  var data = JSON.parse(dataElement.textContent || '{}');

  function show(element, visible) {
    if (element) element.hidden = !visible;
  }

  function cell(row, text, code) {
    var td = document.createElement('td');
    if (code) {
      var c = document.createElement('code');
      c.textContent = text;
      td.appendChild(c);
    } else {
      td.textContent = text;
    }
    row.appendChild(td);
    return td;
  }

  /** GET a platform endpoint cross-origin and parse its JSON, with an error that says what went wrong. */
  function fetchJson(url, what) {
    return fetch(url, { method: 'GET', headers: { Accept: 'application/json' } }).then(
      function (response) {
        if (!response.ok) throw new Error('The ' + what + ' URL answered HTTP ' + response.status + '.');
        return response.text().then(function (text) {
          try {
            return JSON.parse(text);
          } catch {
            throw new Error('The ' + what + ' is not JSON.');
          }
        });
      },
      function () {
        throw new Error(
          'The browser could not read the ' + what + ' at ' + url + '. The endpoint is down, or it does not allow this page\u2019s origin (Access-Control-Allow-Origin).',
        );
      },
    );
  }

  /** The roster: a JSON array of [id, name] pairs. */
  function loadRoster() {
    return fetchJson(data.rosterUrl, 'roster').then(function (value) {
      if (!Array.isArray(value)) throw new Error('The roster is not a JSON array of [id, name] pairs.');
      var names = new Map();
      value.forEach(function (pair) {
        if (!Array.isArray(pair) || typeof pair[0] !== 'string') throw new Error('The roster is not a JSON array of [id, name] pairs.');
        names.set(pair[0], typeof pair[1] === 'string' ? pair[1] : '');
      });
      return names;
    });
  }

  function renderRoster(names) {
    var table = document.getElementById('roster-table');
    var status = document.getElementById('roster-status');
    var container = document.getElementById('roster');
    if (!table || !status || !container) return;
    var body = table.querySelector('tbody');
    var unnamed = 0;
    names.forEach(function (name, id) {
      var row = document.createElement('tr');
      row.setAttribute('data-user-id', id);
      cell(row, id, true);
      cell(row, name || '(no name)');
      if (!name) unnamed++;
      body.appendChild(row);
    });
    status.textContent =
      names.size + ' candidate' + (names.size === 1 ? '' : 's') + ' in the roster.' +
      (unnamed ? ' ' + unnamed + ' without a name: the platform may hide names from the tool (privacy settings).' : '');
    show(table, names.size > 0);
    container.setAttribute('data-state', 'loaded');
  }

  function markAttempts(names) {
    var rows = document.querySelectorAll('#attempts tr[data-user-id]');
    rows.forEach(function (row) {
      var nameCell = row.querySelector('.name');
      var id = row.getAttribute('data-user-id');
      if (!nameCell) return;
      if (names && names.has(id)) {
        nameCell.textContent = names.get(id) || '(no name)';
      } else {
        nameCell.textContent = 'Unmatched';
        nameCell.className = 'name unmatched';
      }
    });
  }

  function rosterFailed(error) {
    var status = document.getElementById('roster-status');
    var container = document.getElementById('roster');
    if (status) {
      status.textContent = error.message + ' Attempts show as Unmatched.';
      status.className = 'error';
      status.id = 'roster-error';
    }
    if (container) container.setAttribute('data-state', 'error');
    markAttempts(null);
  }

  function candidateName(names) {
    var line = document.getElementById('roster-name');
    if (!line) return;
    line.textContent = names.has(data.userId)
      ? 'Name from the roster: ' + (names.get(data.userId) || '(no name)')
      : 'This candidate is not in the roster: the attempt would show as Unmatched.';
    show(line, true);
  }

  function loadExams() {
    var table = document.getElementById('exams-table');
    var status = document.getElementById('exams-status');
    var container = document.getElementById('exams');
    fetchJson(data.examRosterUrl, 'exam roster')
      .then(function (value) {
        if (!Array.isArray(value)) throw new Error('The exam roster is not a JSON array of exams.');
        var body = table.querySelector('tbody');
        value.forEach(function (exam) {
          var row = document.createElement('tr');
          var item = exam && typeof exam === 'object' ? exam : {};
          cell(row, String(item.exam_name || item.name || '(no name)'));
          cell(row, String(item.exam_tag || '—'), true);
          cell(row, String(item.section_id || '—'), true);
          cell(row, item.roster_url ? String(item.roster_url) : '—', Boolean(item.roster_url));
          body.appendChild(row);
        });
        status.textContent = value.length + ' exam' + (value.length === 1 ? '' : 's') + '.';
        show(table, value.length > 0);
        container.setAttribute('data-state', 'loaded');
      })
      .catch(function (error) {
        status.textContent = error.message;
        status.className = 'error';
        status.id = 'exams-error';
        container.setAttribute('data-state', 'error');
      });
  }

  if (data.kind === 'reviewer' || data.kind === 'live') {
    if (data.rosterUrl) {
      loadRoster().then(function (names) {
        renderRoster(names);
        markAttempts(names);
      }, rosterFailed);
    } else {
      markAttempts(null);
    }
  } else if (data.kind === 'candidate' && data.rosterUrl) {
    loadRoster().then(candidateName, function (error) {
      var line = document.getElementById('roster-name');
      if (line) {
        line.textContent = error.message;
        line.className = 'error';
        show(line, true);
      }
    });
  } else if (data.kind === 'launchpad') {
    loadExams();
  }
})();
