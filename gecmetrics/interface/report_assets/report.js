/* gecmetrics report: views over the JSON embedded in the page (#report-data).
   Plain JavaScript, no framework, no network. window.gecReport exposes the state
   and the time the last sort/filter took (performance.now()), read by the tests. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var state = { lastApplyMs: null, shown: 0, baseline: 0, sortColumn: null, sortDesc: true };
  window.gecReport = state;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "class") node.className = attrs[k];
        else node.setAttribute(k, attrs[k]);
      }
    }
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function pct(v) { return v === null || v === undefined ? "–" : (100 * v).toFixed(2); }

  /* ---- tabs ------------------------------------------------------------ */
  var tabs = Array.prototype.slice.call(document.querySelectorAll("nav [role=tab]"));
  function select(tab) {
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
  }
  tabs.forEach(function (t, i) {
    t.addEventListener("click", function () { select(t); });
    t.addEventListener("keydown", function (ev) {
      var j = ev.key === "ArrowRight" ? i + 1 : ev.key === "ArrowLeft" ? i - 1 : null;
      if (j === null) return;
      var next = tabs[(j + tabs.length) % tabs.length];
      select(next); next.focus(); ev.preventDefault();
    });
  });
  if (tabs.length) select(tabs[0]);

  /* ---- sortable plain tables (meta-evaluation) ----------------------------- */
  function sortable(table) {
    var heads = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(heads, function (th, col) {
      var label = th.textContent;
      th.textContent = "";
      var b = el("button", { type: "button", text: label });
      th.appendChild(b);
      b.addEventListener("click", function () {
        var desc = th.getAttribute("aria-sort") !== "descending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b2) {
          var x = a.cells[col].textContent, y = b2.cells[col].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  if (!data.columns) return;  // a meta-evaluation page: its tables are static

  /* ---- leaderboard ------------------------------------------------------- */
  var cols = data.columns, systems = data.systems, N = data.sources.length;
  var hasPaired = cols.some(function (c) { return c.paired.length > 0; });
  var ALPHA = 0.05;

  function mark(c, s) {
    if (!c.paired.length || s === state.baseline) return null;
    var p = c.paired[state.baseline][s];
    if (!p) return null;
    var d = p[0], lo = p[1], hi = p[2], pv = p[3];
    var title = "vs " + systems[state.baseline] + ": delta " + pct(d) + " [" + pct(lo) +
      ", " + pct(hi) + "], p = " + (pv === null ? "–" : pv.toFixed(4));
    if (pv !== null && pv < ALPHA) {
      return el("span", { class: d > 0 ? "sig-up" : "sig-down", title: title,
                          "aria-label": (d > 0 ? "significantly better; " : "significantly worse; ") + title },
                [d > 0 ? " ▲" : " ▼"]);
    }
    return el("span", { class: "sig-none", title: title, "aria-label": "not significant; " + title },
              [" ·"]);
  }

  function leaderboard() {
    var box = document.getElementById("leaderboard-table");
    var order = systems.map(function (_, i) { return i; });
    if (state.sortColumn !== null) {
      var c = state.sortColumn;
      order.sort(function (a, b) {
        var x = c < 0 ? systems[a] : cols[c].corpus[a], y = c < 0 ? systems[b] : cols[c].corpus[b];
        var r = c < 0 ? String(x).localeCompare(String(y)) : ((x === null) - (y === null)) || (x - y);
        return state.sortDesc ? -r : r;
      });
    }
    var head = el("tr", null, [th(-1, "system")].concat(cols.map(function (c, i) {
      return th(i, c.label);
    })));
    var body = order.map(function (s) {
      var cells = [el("td", { class: "text", text: systems[s] })];
      cols.forEach(function (c) {
        var td = el("td", c.precision[s] === null ? null :
                    { title: "P " + pct(c.precision[s]) + ", R " + pct(c.recall[s]) }, [pct(c.corpus[s])]);
        var m = mark(c, s);
        if (m) td.appendChild(m);
        cells.push(td);
      });
      return el("tr", s === state.baseline && hasPaired ? { class: "baseline" } : null, cells);
    });
    var table = el("table", { id: "leaderboard" }, [el("thead", null, [head]), el("tbody", null, body)]);
    box.textContent = "";
    box.appendChild(table);
  }
  function th(i, label) {
    var attrs = { scope: "col" };
    if (state.sortColumn === i) attrs["aria-sort"] = state.sortDesc ? "descending" : "ascending";
    if (i < 0) attrs["class"] = "text";
    var b = el("button", { type: "button", text: label });
    b.addEventListener("click", function () {
      state.sortDesc = state.sortColumn === i ? !state.sortDesc : i >= 0;
      state.sortColumn = i;
      leaderboard();
      var again = document.querySelectorAll("#leaderboard thead button")[i + 1];
      if (again) again.focus();
    });
    return el("th", attrs, [b]);
  }
  var baseSel = document.getElementById("baseline");
  if (baseSel) {
    systems.forEach(function (s, i) { baseSel.appendChild(el("option", { value: i, text: s })); });
    baseSel.addEventListener("change", function () { state.baseline = +baseSel.value; leaderboard(); });
  }
  leaderboard();

  /* ---- sentence explorer ------------------------------------------------- */
  var srcTokens = data.sources.map(function (s) { return s.split(/\s+/).filter(Boolean); });
  var haystack = data.sources.map(function (s, i) {
    var parts = [s];
    data.outputs.forEach(function (o) { if (o[i] !== null) parts.push(o[i]); });
    data.references.forEach(function (r) { parts.push(r.lines[i]); });
    return parts.join("\n").toLowerCase();
  });
  var typesOf = data.sources.map(function (_, i) {
    var set = {};
    data.edits.forEach(function (per) { per[i].forEach(function (e) { set[e[3]] = true; }); });
    return set;
  });
  // metric disagreement: the share of (metric pair, system pair) that order the two
  // systems oppositely on this sentence (0 with one metric)
  var disagreement = data.sources.map(function (_, i) {
    var bad = 0, all = 0;
    for (var a = 0; a < cols.length; a++) {
      for (var b = a + 1; b < cols.length; b++) {
        var A = cols[a].sentences, B = cols[b].sentences;
        for (var s = 0; s < systems.length; s++) {
          for (var t = s + 1; t < systems.length; t++) {
            var x = A[s][i], y = A[t][i], u = B[s][i], v = B[t][i];
            if (x === null || y === null || u === null || v === null) continue;
            all++;
            if ((x - y) * (u - v) < 0) bad++;
          }
        }
      }
    }
    return all ? bad / all : 0;
  });
  state.disagreement = disagreement;

  var q = function (id) { return document.getElementById(id); };
  var search = q("search"), sortSel = q("sort"), metricSel = q("metric"), sysA = q("system-a"),
      sysB = q("system-b"), typeSel = q("type"), list = q("sentence-list"), status = q("status");
  cols.forEach(function (c, i) { metricSel.appendChild(el("option", { value: i, text: c.label })); });
  systems.forEach(function (s, i) {
    sysA.appendChild(el("option", { value: i, text: s }));
    sysB.appendChild(el("option", { value: i, text: s }));
  });
  if (systems.length > 1) sysB.value = "1";
  data.types.forEach(function (t) { typeSel.appendChild(el("option", { value: t, text: t })); });

  function sortKey(i) {
    var how = sortSel.value, c = cols[+metricSel.value], a = +sysA.value, b = +sysB.value;
    if (how === "disagreement") return disagreement[i];
    if (how === "difference" || how === "absdiff") {
      var x = c.sentences[a][i], y = c.sentences[b][i];
      if (x === null || y === null) return null;
      return how === "absdiff" ? Math.abs(x - y) : x - y;
    }
    if (how === "score") return c.sentences[a][i];
    if (how === "length") return srcTokens[i].length;
    return null;
  }

  var PAGE = 200, limit = PAGE, current = [];
  function apply() {
    var t0 = performance.now();
    var text = search.value.trim().toLowerCase(), type = typeSel.value, how = sortSel.value;
    var idx = [], number = /^#\d+$/.test(text) ? +text.slice(1) - 1 : -1;
    for (var i = 0; i < N; i++) {
      if (number >= 0 ? i !== number : text && haystack[i].indexOf(text) < 0) continue;
      if (type && !typesOf[i][type]) continue;
      idx.push(i);
    }
    var keys = new Array(N);
    if (how !== "index") {
      idx.forEach(function (i) { keys[i] = sortKey(i); });
      idx.sort(function (a, b) {
        var x = keys[a], y = keys[b];
        if (x === null && y === null) return a - b;
        if (x === null) return 1;
        if (y === null) return -1;
        return (y - x) || (a - b);
      });
    }
    current = idx;
    state.keys = keys;
    render();
    state.lastApplyMs = performance.now() - t0;
    state.shown = idx.length;
    status.textContent = idx.length + " of " + N + " sentences (" +
      state.lastApplyMs.toFixed(0) + " ms)";
  }

  function render() {
    var how = sortSel.value, frag = document.createDocumentFragment();
    current.slice(0, limit).forEach(function (i) {
      var k = state.keys[i];
      var key = how === "index" || k === null || k === undefined ? "" :
        how === "length" ? String(k) : how === "disagreement" ? (100 * k).toFixed(0) + "%" : pct(k);
      var row = el("div", { class: "row", tabindex: "0", role: "button", "aria-expanded": "false",
                            "data-index": i },
                   [el("span", { text: "#" + (i + 1) }), el("span", { class: "src", text: data.sources[i] }),
                    el("span", { class: "key", text: key })]);
      frag.appendChild(el("li", null, [row]));
    });
    list.textContent = "";
    list.appendChild(frag);
    var more = q("more");
    more.hidden = current.length <= limit;
    more.textContent = "show " + Math.min(PAGE, current.length - limit) + " more";
  }

  function toggle(row) {
    var li = row.parentNode, open = row.getAttribute("aria-expanded") === "true";
    if (open) { li.removeChild(li.querySelector(".detail")); row.setAttribute("aria-expanded", "false"); return; }
    row.setAttribute("aria-expanded", "true");
    li.appendChild(detail(+row.getAttribute("data-index")));
  }

  /* ---- edit attributions as colour ---------------------------------------- */
  // A diverging scale: red lowers the score, blue raises it (not red/green, for
  // colour-blind readers), deeper is larger up to the metric's scale, the 95th
  // percentile of |value| (a few extreme edits do not wash out the rest). The sign
  // after the edit (CSS ::after from data-sign) and the tooltip are the second cue.
  var attrs = data.attributions || {}, attrSel = q("attr-metric"), scales = {};
  Object.keys(attrs).forEach(function (spec) {
    var all = [];
    attrs[spec].forEach(function (per) { per.forEach(function (v) {
      v.forEach(function (x) { if (x !== 0) all.push(Math.abs(x)); }); }); });
    all.sort(function (a, b) { return a - b; });
    scales[spec] = all.length ? all[Math.min(all.length - 1, Math.floor(0.95 * all.length))] : 1;
  });
  state.attrScales = scales;
  function attrSpec() { return attrSel && attrSel.value && attrs[attrSel.value] ? attrSel.value : null; }
  function legend() {
    var box = q("attr-legend"), spec = attrSpec();
    if (!box) return;
    box.hidden = spec === null;
    if (spec !== null) {
      q("attr-min").textContent = pct(scales[spec]);
      q("attr-max").textContent = pct(scales[spec]);
    }
  }
  function attrStyle(v, scale) {
    var t = Math.min(1, Math.abs(v) / scale), w = 1 - t;
    var c = v >= 0 ? [33, 102, 172] : [178, 24, 43];
    var mix = c.map(function (x) { return Math.round(255 * w + x * t); });
    var fg = t > 0.6 ? "#fff" : "#1b1b1b";
    return "background: rgb(" + mix.join(",") + "); color: " + fg;
  }
  function signed(v) { return (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + Math.abs(100 * v).toFixed(2); }

  function edited(i, edits, values, scale) {
    var toks = srcTokens[i], out = el("span"), pos = 0;
    var order = edits.map(function (e, k) { return k; }).sort(function (a, b) {
      return edits[a][0] - edits[b][0] || edits[a][1] - edits[b][1];
    });
    function plain(to) {
      if (to > pos) out.appendChild(document.createTextNode(toks.slice(pos, to).join(" ") + " "));
      pos = Math.max(pos, to);
    }
    order.forEach(function (k) {
      var e = edits[k], op = e[0] === e[1] ? "M" : e[2] === "" ? "U" : "R";
      plain(e[0]);
      var v = values ? values[k] : null, has = v !== null && v !== undefined;
      var title = e[3] + (has ? "; attribution " + signed(v) + " points" : "");
      var attrs2 = { class: "e op-" + op + (has ? " attr" : ""), title: title };
      if (has) {
        attrs2.style = attrStyle(v, scale);
        attrs2["data-attribution"] = String(v);
        attrs2["data-sign"] = v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1";
      }
      // a replacement is one edit: its sign follows the inserted part only
      var last = e[2] !== "" ? "ins" : "del";
      if (e[1] > e[0]) {
        var d = el("del", attrs2, [toks.slice(e[0], e[1]).join(" ")]);
        if (last !== "del") d.removeAttribute("data-sign");
        out.appendChild(d);
        out.appendChild(document.createTextNode(" "));
      }
      if (e[2] !== "") {
        out.appendChild(el("ins", attrs2, [e[2]]));
        out.appendChild(document.createTextNode(" "));
      }
      pos = Math.max(pos, e[1]);
    });
    plain(toks.length);
    return out;
  }

  function detail(i) {
    var spec = attrSpec(), attr = spec === null ? null : attrs[spec];
    var head = el("tr", null, [el("th", { class: "text", text: "" }), el("th", { class: "text", text: "sentence" })]
      .concat(cols.map(function (col) { return el("th", { text: col.label }); })));
    var rows = [el("tr", null, [el("td", { class: "text", text: "source" }),
                                el("td", { class: "text", text: data.sources[i] })]
                   .concat(cols.map(function () { return el("td"); })))];
    data.references.forEach(function (r, k) {
      var edits = data.reference_edits[k] ? data.reference_edits[k][i] : [];
      rows.push(el("tr", null, [el("td", { class: "text", text: "ref: " + r.name }),
                                el("td", { class: "text" }, [edited(i, edits, null, 1)])]
                   .concat(cols.map(function () { return el("td"); }))));
    });
    systems.forEach(function (s, k) {
      var values = attr && attr[k] && attr[k][i] ? attr[k][i] : null;
      rows.push(el("tr", null, [el("td", { class: "text", text: s }),
                                el("td", { class: "text" }, [edited(i, data.edits[k][i], values,
                                                                    spec === null ? 1 : scales[spec])])]
                   .concat(cols.map(function (col) { return el("td", { text: pct(col.sentences[k][i]) }); }))));
    });
    return el("div", { class: "detail" }, [el("table", null, [el("thead", null, [head]), el("tbody", null, rows)])]);
  }
  if (attrSel) {
    attrSel.addEventListener("change", function () {
      legend();
      Array.prototype.forEach.call(list.querySelectorAll(".row[aria-expanded=true]"), function (row) {
        var li = row.parentNode;
        li.replaceChild(detail(+row.getAttribute("data-index")), li.querySelector(".detail"));
      });
    });
  }
  legend();

  list.addEventListener("click", function (ev) {
    var row = ev.target.closest ? ev.target.closest(".row") : null;
    if (row) toggle(row);
  });
  list.addEventListener("keydown", function (ev) {
    var row = ev.target.classList && ev.target.classList.contains("row") ? ev.target : null;
    if (!row) return;
    if (ev.key === "Enter" || ev.key === " ") { toggle(row); ev.preventDefault(); return; }
    var li = row.parentNode, next = null;
    if (ev.key === "ArrowDown" && li.nextSibling) next = li.nextSibling.querySelector(".row");
    if (ev.key === "ArrowUp" && li.previousSibling) next = li.previousSibling.querySelector(".row");
    if (next) { next.focus(); ev.preventDefault(); }
  });
  q("more").addEventListener("click", function () { limit += PAGE; render(); });
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer); timer = setTimeout(function () { limit = PAGE; apply(); }, 120);
  });
  [sortSel, metricSel, sysA, sysB, typeSel].forEach(function (s) {
    s.addEventListener("change", function () { limit = PAGE; apply(); });
  });
  state.apply = function (all) { limit = all ? N : PAGE; apply(); };
  apply();
})();
