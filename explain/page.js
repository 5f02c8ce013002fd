// The page's script. It replays what the page's data recorded (the changes each step made to
// the picture) and draws it; it works out nothing the trace did not record.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var steps = D.steps;
  var SVGNS = "http://www.w3.org/2000/svg";
  var KEYFRAME = 200;

  // --- state: the picture after step k, replayed from the recorded changes ---
  function applySet(m, set) {
    for (var i = 0; i < set.length; i++) {
      if (set[i][1] === "") { m.delete(set[i][0]); } else { m.set(set[i][0], set[i][1]); }
    }
  }
  var frames = [];
  var allKeys = new Set();
  (function () {
    var m = new Map();
    applySet(m, D.init);
    D.init.forEach(function (kv) { allKeys.add(kv[0]); });
    for (var k = 0; k < steps.length; k++) {
      if (k % KEYFRAME === 0) { frames.push(new Map(m)); }
      applySet(m, steps[k].d || []);
      (steps[k].d || []).forEach(function (kv) { allKeys.add(kv[0]); });
    }
  })();
  function stateAt(k) {
    if (k < 0 || steps.length === 0) { var m0 = new Map(); applySet(m0, D.init); return m0; }
    var f = Math.floor(k / KEYFRAME);
    var m = new Map(frames[f]);
    for (var i = f * KEYFRAME; i <= k; i++) { applySet(m, steps[i].d || []); }
    return m;
  }

  // --- filters ---
  var podSel = document.getElementById("pod");
  D.pods.forEach(function (p) {
    var o = document.createElement("option"); o.value = p; o.textContent = p; podSel.appendChild(o);
  });
  if (D.pod) { podSel.value = D.pod; }
  var catBoxes = [];
  var catsEl = document.getElementById("cats");
  D.cats.forEach(function (c, i) {
    var l = document.createElement("label");
    var b = document.createElement("input");
    b.type = "checkbox"; b.checked = D.only.length === 0 || D.only.indexOf(c) >= 0; b.dataset.cat = i;
    l.appendChild(b); l.appendChild(document.createTextNode(" " + c));
    catsEl.appendChild(l); catBoxes.push(b);
  });
  // visible says whether the filters keep step s, as explain's --pod and --only do: a step of
  // every category (run start and end, scripted events) always shows, and with a pod chosen a
  // step must name it unless it is one of those.
  function visible(s) {
    if (s.c >= 0 && !catBoxes[s.c].checked) { return false; }
    var pod = podSel.value;
    if (pod === "") { return true; }
    var pi = D.pods.indexOf(pod);
    if (!s.p || s.p.length === 0) { return s.c === -1; }
    return s.p.indexOf(pi) >= 0;
  }
  function seek(from, dir, pred) {
    for (var i = from + dir; i >= 0 && i < steps.length; i += dir) {
      if (visible(steps[i]) && (!pred || pred(steps[i]))) { return i; }
    }
    return from;
  }

  // --- the picture ---
  var svg = document.getElementById("lanes");
  var ROW = 30, LABEL = 200, STATE = 290, STRIP_X = LABEL + STATE + 10, COL = 16, BEFORE = 19, AFTER = 6;
  var W = STRIP_X + (BEFORE + AFTER + 1) * COL + 10;
  var rows = [];
  D.laneOrder.forEach(function (li) {
    var name = D.lanes[li];
    if (name === "syncLoop") {
      D.channels.forEach(function (c, ci) { rows.push({ chan: ci, name: c }); });
    }
    rows.push({ lane: li, name: name });
  });
  if (D.lanes.indexOf("syncLoop") < 0) {
    D.channels.forEach(function (c, ci) { rows.push({ chan: ci, name: c }); });
  }
  var laneRow = {}, chanRow = {};
  rows.forEach(function (r, i) { if (r.chan === undefined) { laneRow[r.lane] = i; } else { chanRow[r.chan] = i; } });
  var H = 22 + rows.length * ROW;
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("width", W);
  svg.setAttribute("height", H);

  function el(name, attrs, text, parent) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    (parent || svg).appendChild(e);
    return e;
  }
  var defs = el("defs", {});
  var clip = el("clipPath", { id: "stateclip" }, undefined, defs);
  el("rect", { x: LABEL, y: 0, width: STATE, height: H }, undefined, clip);
  var clipName = el("clipPath", { id: "nameclip" }, undefined, defs);
  el("rect", { x: 0, y: 0, width: LABEL - 6, height: H }, undefined, clipName);

  var rowRects = [];
  var keyed = [];
  function keyedText(key, attrs) {
    var t = el("text", attrs, "");
    t.setAttribute("data-key", key);
    keyed.push(t);
    return t;
  }
  var chips = {};
  // Each lane's span in progress is written after its state, wherever that ends.
  var busyAfter = [];
  rows.forEach(function (r, i) {
    var y = 22 + i * ROW;
    rowRects.push(el("rect", { class: "row" + (r.chan !== undefined ? " chan" : ""), x: 0, y: y + 1, width: W, height: ROW - 2 }));
    if (r.chan !== undefined) {
      el("text", { class: "chan-name", x: 6, y: y + 13, "clip-path": "url(#nameclip)" }, "⇶ " + r.name);
      var from = (D.senders[r.name] || []).join(", ");
      el("title", {}, "sent by: " + (from || "no goroutine in this run"),
        el("text", { class: "lane-last", x: 6, y: y + 26, "clip-path": "url(#nameclip)" }, from ? "from " + from : (r.name === "syncCh" || r.name === "housekeepingCh" ? "a ticker" : "nothing sent in this run")));
      if (D.chanNotes[r.name]) {
        el("text", { class: "lane-last", x: LABEL, y: y + 18 }, D.chanNotes[r.name], el("g", { "clip-path": "url(#stateclip)" }));
      }
      if (r.name === "syncCh" || r.name === "housekeepingCh") {
        keyedText("T|" + r.name, { class: "tick", x: LABEL, y: y + 18 });
      }
      chips[r.name] = el("g", { "clip-path": "url(#stateclip)" });
      return;
    }
    // A long name is clipped; its tooltip gives it whole.
    el("title", {}, r.name, el("text", { class: "lane-name", x: 6, y: y + 13, "clip-path": "url(#nameclip)" }, r.name));
    var g = el("g", { "clip-path": "url(#stateclip)" });
    var st = keyedText("S|" + r.name, { class: "lane-status", x: LABEL, y: y + 13 });
    g.appendChild(st);
    var busy = keyedText("B|" + r.name, { class: "lane-busy", x: LABEL, y: y + 13 });
    g.appendChild(busy);
    busyAfter.push([st, busy]);
    var last = keyedText("L|" + r.name, { class: "lane-last", x: LABEL, y: y + 26 });
    g.appendChild(last);
  });
  var strip = el("g", {});

  function drawChips(state) {
    Object.keys(chips).forEach(function (c) {
      var g = chips[c];
      while (g.firstChild) { g.removeChild(g.firstChild); }
      var v = state.get("C|" + c);
      if (!v) { return; }
      var items = v.split("\n");
      var y = 22 + chanRow[D.channels.indexOf(c)] * ROW;
      var x = LABEL;
      el("text", { class: "chip-text", x: x, y: y + 18 }, items.length + " waiting:", g);
      x += 58;
      items.forEach(function (it) {
        var w = Math.min(240, 10 + it.length * 6.1);
        el("rect", { class: "chip", x: x, y: y + 6, width: w, height: 17, rx: 3 }, undefined, g);
        el("text", { class: "chip-text", x: x + 4, y: y + 18 }, it, g);
        x += w + 4;
      });
    });
  }

  function drawStrip(cur) {
    while (strip.firstChild) { strip.removeChild(strip.firstChild); }
    var cols = [cur];
    var i = cur, j, n;
    for (n = 0; n < BEFORE; n++) { j = seek(i, -1); if (j === i) { break; } cols.unshift(j); i = j; }
    i = cur;
    for (n = 0; n < AFTER; n++) { j = seek(i, 1); if (j === i) { break; } cols.push(j); i = j; }
    var start = BEFORE - cols.indexOf(cur);
    cols.forEach(function (k, c) {
      var x = STRIP_X + (start + c) * COL;
      var s = steps[k];
      // A click on a column goes to its step; its tooltip says which.
      var col = el("rect", { class: "col" + (k === cur ? " cur" : ""), x: x, y: 18, width: COL - 2, height: H - 18, "data-step": k }, undefined, strip);
      el("title", {}, fmtTime(s.t) + " " + D.lanes[s.l] + ": " + s.x, col);
      col.addEventListener("click", function () { go(k); });
      var lr = laneRow[s.l];
      if (lr === undefined) { return; }
      var ly = 22 + lr * ROW + ROW / 2;
      if (s.ch >= 0 && chanRow[s.ch] !== undefined && (s.k === "send" || s.k === "recv" || s.k === "select" || s.k === "drop")) {
        var cy = 22 + chanRow[s.ch] * ROW + ROW / 2;
        el("line", { class: "flow", x1: x + COL / 2 - 1, y1: ly, x2: x + COL / 2 - 1, y2: cy }, undefined, strip);
      }
      el("circle", { class: "dot" + (s.i ? " iter" : ""), cx: x + COL / 2 - 1, cy: ly, r: k === cur ? 6 : 4 }, undefined, strip);
      if (k === cur) {
        el("text", { class: "axis", x: x - 20, y: 12 }, fmtTime(s.t), strip);
      }
    });
    rowRects.forEach(function (r, ri) {
      var s = steps[cur];
      var active = s && ((rows[ri].lane === s.l) || (rows[ri].chan !== undefined && rows[ri].chan === s.ch));
      r.setAttribute("class", "row" + (rows[ri].chan !== undefined ? " chan" : "") + (active ? " active" : ""));
    });
  }

  // --- the side panel: every value shown is one key of the picture ---
  var podBody = document.querySelector("#pods tbody");
  var ctrBody = document.querySelector("#containers tbody");
  function cell(tr, key, text) {
    var td = document.createElement("td");
    if (key) { td.setAttribute("data-key", key); td.className = "val"; keyed.push(td); } else { td.textContent = text; }
    tr.appendChild(td);
    return td;
  }
  D.pods.forEach(function (p) {
    var tr = document.createElement("tr");
    cell(tr, null, p); cell(tr, "A|" + p); cell(tr, "P|" + p); cell(tr, "S|podWorker " + p);
    podBody.appendChild(tr);
  });
  var ctrs = [];
  allKeys.forEach(function (k) {
    var m = /^[KR]\|(.*)\|([^|]*)$/.exec(k);
    if (m) { var id = m[1] + "|" + m[2]; if (ctrs.indexOf(id) < 0) { ctrs.push(id); } }
  });
  ctrs.sort();
  ctrs.forEach(function (id) {
    var tr = document.createElement("tr");
    cell(tr, null, id.replace("|", " "));
    cell(tr, "K|" + id); cell(tr, "R|" + id);
    ctrBody.appendChild(tr);
  });
  function defRow(dl, name, key) {
    var dt = document.createElement("dt"); dt.textContent = name; dl.appendChild(dt);
    var dd = document.createElement("dd"); dd.setAttribute("data-key", key); keyed.push(dd); dl.appendChild(dd);
  }
  var chDl = document.getElementById("channels");
  D.channels.forEach(function (c) { defRow(chDl, c, "C|" + c); });
  var conds = [];
  allKeys.forEach(function (k) { if (k.indexOf("N|") === 0) { conds.push(k.slice(2)); } });
  conds.sort();
  var condDl = document.getElementById("conditions");
  conds.forEach(function (c) { defRow(condDl, c, "N|" + c); });
  // Keys the layout above has no place for still show, so nothing recorded is hidden.
  var placed = new Set(keyed.map(function (e) { return e.getAttribute("data-key"); }));
  var extra = [];
  allKeys.forEach(function (k) { if (!placed.has(k)) { extra.push(k); } });
  extra.sort();
  extra.forEach(function (k) { defRow(condDl, k, k); });

  var notes = document.getElementById("notes");
  D.notes.forEach(function (n) { var li = document.createElement("li"); li.textContent = n; notes.appendChild(li); });

  // fmtTime prints seconds as the transcript prints times (Go's Duration, rounded to the
  // millisecond, to 100µs under a second): 1m8.149s, 454.8ms, 2h.
  function fmtTime(t) {
    var ns = Math.round(t * 1e9), a = Math.abs(ns);
    var unit = a < 1e6 ? 1e3 : a < 1e9 ? 1e5 : 1e6;
    ns = Math.round(ns / unit) * unit;
    a = Math.abs(ns);
    var sign = ns < 0 ? "-" : "";
    var num = function (v) { return String(parseFloat(v.toFixed(6))); };
    if (a === 0) return "0s";
    if (a < 1e6) return sign + num(a / 1e3) + "µs";
    if (a < 1e9) return sign + num(a / 1e6) + "ms";
    var h = Math.floor(a / 3.6e12), m = Math.floor((a % 3.6e12) / 6e10);
    var out = sign + (h ? h + "h" : "") + (h || m ? m + "m" : "") + num((a % 6e10) / 1e9) + "s";
    return out.replace(/m0s$/, "m").replace(/h0m$/, "h");
  }

  // --- the current step ---
  var cur = steps.length ? 0 : -1;
  var $ = function (id) { return document.getElementById(id); };
  function show() {
    var state = stateAt(cur);
    keyed.forEach(function (e) { e.textContent = state.get(e.getAttribute("data-key")) || ""; });
    busyAfter.forEach(function (p) {
      var w = p[0].textContent ? p[0].getComputedTextLength() + 12 : 0;
      p[1].setAttribute("x", LABEL + w);
    });
    drawChips(state);
    var s = steps[cur];
    document.body.setAttribute("data-step", cur);
    $("position").textContent = steps.length ? "step " + (cur + 1) + " of " + steps.length : "no steps in this window";
    if (!s) { return; }
    document.body.setAttribute("data-seq", s.q);
    $("cur-index").textContent = (cur + 1) + "";
    $("cur-time").textContent = fmtTime(s.t);
    $("cur-seq").textContent = s.q + "";
    $("cur-lane").textContent = D.lanes[s.l];
    $("cur-text").textContent = s.x;
    $("cur-folded").textContent = s.z ? "(" + s.z + " quiet steps folded into this one)" : "";
    $("cur-lines").textContent = (s.tl || []).join("\n");
    $("cur-why").textContent = s.w || "";
    var up = $("cur-up");
    if (s.u >= 0) {
      var u = D.upstream[s.u];
      up.textContent = u.func + " (" + u.file + (u.line ? ":" + u.line : "") + ")";
      up.setAttribute("href", u.url);
    } else {
      up.textContent = "none: not a kubelet step";
      up.removeAttribute("href");
    }
    drawStrip(cur);
    drawTranscript();
  }
  function drawTranscript() {
    var pre = $("transcript");
    while (pre.firstChild) { pre.removeChild(pre.firstChild); }
    var blocks = [];
    var n = 0;
    for (var i = cur; i >= 0 && n < 14; i--) {
      var s = steps[i];
      if (!s.tl || !visible(s)) { continue; }
      blocks.unshift({ cur: i === cur, text: s.tl.map(function (l) { return l.indexOf("why: ") === 0 ? "        " + l : l; }).join("\n") });
      n += s.tl.length;
    }
    blocks.forEach(function (b) {
      var sp = document.createElement("span");
      sp.textContent = b.text + "\n";
      if (b.cur) { sp.className = "cur"; }
      pre.appendChild(sp);
    });
  }
  function go(k) { if (k >= 0 && k < steps.length && k !== cur) { cur = k; show(); } }
  function next() { go(seek(cur, 1)); }
  function prev() { go(seek(cur, -1)); }
  function nextIter() { go(seek(cur, 1, function (s) { return s.i; })); }
  function prevIter() { go(seek(cur, -1, function (s) { return s.i; })); }

  var timer = null;
  var playBtn = $("play");
  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      timer = setInterval(function () {
        var k = seek(cur, 1);
        if (k === cur) { play(false); return; }
        go(k);
      }, 1000 / Number($("speed").value));
    }
    playBtn.textContent = timer ? "⏸ pause" : "▶ play";
  }
  function speed(dir) {
    var s = $("speed");
    s.selectedIndex = Math.max(0, Math.min(s.options.length - 1, s.selectedIndex + dir));
    if (timer) { play(true); }
  }
  // parseTime reads "90", "90s", "1m30s", "2m", "1h": seconds.
  function parseTime(v) {
    v = v.trim();
    if (/^\d+(\.\d+)?$/.test(v)) { return Number(v); }
    var re = /(\d+(?:\.\d+)?)(h|ms|m|s)/g, m, t = 0, seen = "";
    while ((m = re.exec(v)) !== null) {
      seen += m[0];
      t += Number(m[1]) * ({ h: 3600, m: 60, s: 1, ms: 0.001 })[m[2]];
    }
    return seen === v && v !== "" ? t : NaN;
  }
  function jump() {
    var t = parseTime($("time").value);
    if (isNaN(t)) { $("time").setCustomValidity("want a time such as 90s or 2m"); return; }
    $("time").setCustomValidity("");
    for (var i = 0; i < steps.length; i++) {
      if (steps[i].t >= t && visible(steps[i])) { go(i); break; }
    }
    $("time").blur();
  }

  // A clicked button gives the keyboard back to the page, so that space and the arrows
  // step rather than press the button again.
  document.querySelectorAll("#controls button").forEach(function (b) {
    b.addEventListener("click", function () { b.blur(); });
  });
  $("first").onclick = function () { go(seek(-1, 1)); };
  $("last").onclick = function () { go(seek(steps.length, -1)); };
  $("prev").onclick = prev;
  $("next").onclick = next;
  $("previter").onclick = prevIter;
  $("nextiter").onclick = nextIter;
  playBtn.onclick = function () { play(!timer); };
  $("speed").onchange = function () { if (timer) { play(true); } };
  $("time").onchange = jump;
  podSel.onchange = show;
  catBoxes.forEach(function (b) { b.onchange = show; });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT") {
      if (ev.key === "Escape") { ev.target.blur(); }
      return;
    }
    // The browser's own shortcuts (Ctrl, Alt, Cmd) stay the browser's.
    if (ev.ctrlKey || ev.altKey || ev.metaKey) { return; }
    var handled = true;
    switch (ev.key) {
      case "ArrowRight": if (ev.shiftKey) { nextIter(); } else { next(); } break;
      case "ArrowLeft": if (ev.shiftKey) { prevIter(); } else { prev(); } break;
      case "n": next(); break;
      case "p": prev(); break;
      case "]": nextIter(); break;
      case "[": prevIter(); break;
      case " ": play(!timer); break;
      case "+": case "=": speed(1); break;
      case "-": speed(-1); break;
      case "Home": $("first").onclick(); break;
      case "End": $("last").onclick(); break;
      case "t": $("time").focus(); break;
      default: handled = false;
    }
    if (handled) { ev.preventDefault(); }
  });
  // A link may name a moment: page.html#t=63 opens at the first step at or after 63s,
  // page.html#s=307 at step 307 (as the page numbers them).
  var m = /^#t=(.+)$/.exec(window.location.hash);
  if (m) { $("time").value = decodeURIComponent(m[1]); jump(); }
  m = /^#s=(\d+)$/.exec(window.location.hash);
  if (m) { go(Math.min(steps.length, Number(m[1])) - 1); }
  show();
  document.body.setAttribute("data-ready", "1");
})();
