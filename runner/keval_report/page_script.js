// keval report: sortable tables. A click on a header sorts by that column (again: the other
// way); ?sort=COLUMN&order=asc|desc sorts on load (tests drive the page this way). The filter
// box shows only the submissions whose row holds its text (any case; ?filter=TEXT on load).
// Errors are collected on <body data-errors> so a headless browser can tell that the script ran
// cleanly.
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (event) {
    errors.push(String(event.message));
    document.body.setAttribute("data-errors", errors.join(" | "));
  });

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute("data-v") : null;
    if (raw === null && cell) raw = cell.textContent;
    if (!numeric) return (raw || "").toLowerCase();
    var value = parseFloat(raw);
    return isNaN(value) ? null : value;
  }

  function sortTable(table, index, descending) {
    var header = table.tHead.rows[0].cells[index];
    var numeric = header.getAttribute("data-type") === "num";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (x === y) return 0;
      if (x === null) return 1;   // unmeasured last, whichever the order
      if (y === null) return -1;
      var order = x < y ? -1 : 1;
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, index) {
      cell.addEventListener("click", function () {
        sortTable(table, index, cell.getAttribute("aria-sort") === "ascending");
      });
    });
  });

  var params = new URLSearchParams(window.location.search);
  var column = params.get("sort");
  if (column) {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, index) {
        if (cell.getAttribute("data-key") === column) sortTable(table, index, params.get("order") === "desc");
      });
    });
  }

  var filter = document.getElementById("filter");
  var submissions = document.getElementById("submissions");
  function applyFilter() {
    var text = filter.value.trim().toLowerCase();
    var rows = submissions.tBodies[0].rows, shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      row.hidden = text !== "" && row.textContent.toLowerCase().indexOf(text) < 0;
      if (!row.hidden) shown += 1;
    });
    document.getElementById("filter-count").textContent =
      text === "" ? "" : shown + " of " + rows.length + " shown";
  }
  if (filter && submissions) {
    filter.addEventListener("input", applyFilter);
    if (params.get("filter")) {
      filter.value = params.get("filter");
      applyFilter();
    }
  }
  document.body.setAttribute("data-ready", "1");
})();
