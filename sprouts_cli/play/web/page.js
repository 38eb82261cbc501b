// The page of `sprouts play --web`: the picture, moves drawn by hand (Alfeld §3.1), the ladder's buttons.
// Plain JavaScript, no build step.  Every request carries the session's token; the server holds the game.
"use strict";
(function () {
  const token = document.querySelector('meta[name="sprouts-token"]').content;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const overlay = $("overlay");
  let state = null;
  let busy = 0;
  // the move being drawn: start spot, the spots lit, the stroke, the spots marked, click mode
  let drawing = null;
  let clickMode = null;

  async function call(path, data) {
    busy += 1;
    document.body.classList.add("busy");
    try {
      const r = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Sprouts-Token": token },
        body: JSON.stringify(data || {}),
      });
      const answer = await r.json();
      if (!answer.ok && answer.why) say(answer.why, answer.offered || []);
      else if (answer.ok) say("", []);
      return answer;
    } catch (e) {
      say("the server does not answer: " + e, []);
      return { ok: false };
    } finally {
      busy -= 1;
      if (!busy) document.body.classList.remove("busy");
    }
  }

  function say(text, offered) {
    $("message").textContent = text;
    for (const b of document.querySelectorAll(".rung")) {
      b.classList.toggle("offered", offered.includes(b.dataset.rung));
    }
  }

  // ------------------------------------------------------------------ the state, long-polled
  async function poll() {
    let since = -1;
    for (;;) {
      try {
        const q = since < 0 ? "" : "?since=" + since;
        const r = await fetch("/api/state" + q, { headers: { "X-Sprouts-Token": token } });
        if (!r.ok) throw new Error("HTTP " + r.status);
        const s = await r.json();
        since = s.version;
        show(s);
      } catch (e) {
        $("status").textContent = "the server does not answer (" + e.message + "); trying again…";
        await new Promise((ok) => setTimeout(ok, 1000));
      }
    }
  }

  function show(s) {
    const pictureChanged = !state || state.svg !== s.svg;
    state = s;
    window.sproutsState = s;
    document.body.dataset.version = String(s.version);
    $("status").textContent = s.status + (s.error ? " · " + s.error : "");
    const log = $("log");
    log.textContent = s.log.join("\n");
    log.scrollTop = log.scrollHeight;
    document.body.classList.toggle("waiting", Boolean(s.pending));
    if (s.started && pictureChanged) {
      $("picture").innerHTML = s.svg;
      overlay.setAttribute("viewBox", `0 0 ${s.width} ${s.height}`);
      $("board").style.aspectRatio = `${s.width} / ${s.height}`;
      $("board").style.width = `min(100%, ${s.width * 1.25}px)`;
      drawing = null;
      clickMode = null;
    }
    if (s.waiting) say(`no room for ${s.waiting.words}: ${s.waiting.why}`, s.waiting.offered);
    showSettings(s.settings);
    drawOverlay();
  }

  // ------------------------------------------------------------------ the overlay
  function node(name, attrs) {
    const n = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  }

  function drawOverlay() {
    overlay.replaceChildren();
    document.body.dataset.mode = clickMode ? "click" : drawing ? "draw" : "";
    if (!state || !state.started) return;
    for (const d of state.last) overlay.appendChild(node("path", { d, class: "last" }));
    const current = drawing || clickMode;
    if (!current) return;
    const [sx, sy, sr] = state.spots[current.start];
    overlay.appendChild(node("circle", { cx: sx, cy: sy, r: sr + 5, class: "start" }));
    for (const t of current.lit) {
      const [x, y, r] = state.spots[t];
      overlay.appendChild(node("circle", { cx: x, cy: y, r: r + 3, class: "lit", "data-lit": t }));
    }
    for (const t of current.marks) {
      const [x, y, r] = state.spots[t];
      overlay.appendChild(node("circle", { cx: x, cy: y, r: r + 7, class: "marked" }));
    }
    if (drawing && drawing.stroke.length > 1) {
      overlay.appendChild(node("polyline", { points: drawing.stroke.map((p) => p.join(",")).join(" "), class: "stroke" }));
    }
  }

  // picture units from a pointer event, and back (the tests use toScreen)
  function toPicture(ev) {
    const r = overlay.getBoundingClientRect();
    return [((ev.clientX - r.left) * state.width) / r.width, ((ev.clientY - r.top) * state.height) / r.height];
  }
  window.sproutsToScreen = function (x, y) {
    const r = overlay.getBoundingClientRect();
    return [r.left + (x * r.width) / state.width, r.top + (y * r.height) / state.height];
  };

  function dist(p, t) {
    const [x, y] = state.spots[t];
    return Math.hypot(p[0] - x, p[1] - y);
  }

  function nearest(p, among) {
    let best = null;
    let bd = Infinity;
    for (const t of among) {
      const d = dist(p, t);
      if (d < bd) { bd = d; best = t; }
    }
    return [best, bd];
  }

  function allSpots() {
    return state.spots.map((_, i) => i);
  }

  // ------------------------------------------------------------------ drawing by hand
  overlay.addEventListener("contextmenu", (ev) => ev.preventDefault());

  overlay.addEventListener("pointerdown", async (ev) => {
    if (!state || !state.started || busy) return;
    ev.preventDefault();
    const p = toPicture(ev);
    if (clickMode && (ev.shiftKey || ev.button === 2)) { // marking spots to enclose
      const [t] = nearest(p, allSpots());
      const i = clickMode.marks.indexOf(t);
      if (i >= 0) clickMode.marks.splice(i, 1); else clickMode.marks.push(t);
      drawOverlay();
      return;
    }
    if (ev.button !== 0) return;
    if (clickMode) { // the second click: the nearest lit spot is the destination
      const [t] = nearest(p, clickMode.lit);
      const c = clickMode;
      clickMode = null;
      if (t === null) { drawOverlay(); return; }
      await send(c, t, [], p);
      return;
    }
    overlay.setPointerCapture(ev.pointerId);
    // the press is answered by the server (the spot and the spots lit); the stroke is kept meanwhile
    const d = { start: null, lit: [], stroke: [p], marks: [], press: p, far: 0 };
    d.pressing = call("/api/press", { x: p[0], y: p[1] }).then((answer) => {
      if (answer.ok) { d.start = answer.spot; d.lit = answer.lit; }
      return answer;
    });
    drawing = d;
    await d.pressing;
    drawOverlay();
  });

  overlay.addEventListener("pointermove", (ev) => {
    if (!drawing) return;
    const p = toPicture(ev);
    const last = drawing.stroke[drawing.stroke.length - 1];
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) >= 2) {
      drawing.stroke.push(p);
      drawing.far = Math.max(drawing.far, Math.hypot(p[0] - drawing.press[0], p[1] - drawing.press[1]));
      if (drawing.start !== null) drawOverlay();
    }
  });

  overlay.addEventListener("pointerup", async (ev) => {
    if (!drawing) return;
    const d = drawing;
    drawing = null;
    const p = toPicture(ev);
    d.stroke.push(p);
    const answer = await d.pressing;
    if (!answer.ok) { drawOverlay(); return; }
    const [t, dt] = nearest(p, d.lit);
    const ds = dist(p, d.start);
    const r = state.spots[d.start][2];
    // a click: released nearer the start than any lit destination (a loop drawn by hand goes far first)
    const loopStroke = t === d.start && d.far > 3 * (r + 8);
    if (t === null || (t !== d.start && ds < dt) || (t === d.start && !loopStroke)) {
      clickMode = { start: d.start, lit: d.lit, marks: [], press: d.press };
      drawOverlay();
      return;
    }
    await send(d, t, d.stroke, p);
  });

  async function send(d, end, stroke, release) {
    const answer = await call("/api/move", {
      start: d.start, end, press: d.press, release, marks: d.marks, stroke,
    });
    drawOverlay();
    return answer;
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    const key = ev.key.toLowerCase();
    if (key === "escape") { drawing = null; clickMode = null; drawOverlay(); say("", []); return; }
    if (key === "u") { call("/api/undo"); return; }
    const rung = { m: "M", a: "A", r: "R", z: "Z", ".": "." }[key];
    if (rung) call("/api/rung", { rung });
  });

  // ------------------------------------------------------------------ buttons and settings
  $("undo").addEventListener("click", () => call("/api/undo"));
  $("new").addEventListener("click", () => call("/api/new"));
  $("save").addEventListener("click", async () => {
    const a = await call("/api/save");
    if (a.ok) say("saved in " + a.path, []);
  });
  for (const b of document.querySelectorAll(".rung")) {
    b.addEventListener("click", () => call("/api/rung", { rung: b.dataset.rung }));
  }
  $("settings-button").addEventListener("click", () => {
    const f = $("settings");
    f.hidden = !f.hidden;
    $("settings-button").setAttribute("aria-expanded", String(!f.hidden));
  });

  const RUNGS = ["M", "A", "R", "Z", "."];
  for (const div of document.querySelectorAll(".boxes")) {
    for (const r of RUNGS) {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.dataset.rung = r;
      label.append(box, " " + (r === "." ? "•" : r));
      div.appendChild(label);
    }
  }

  function showSettings(s) {
    const f = $("settings");
    for (const name of ["d0", "D", "lam", "spot"]) {
      if (document.activeElement !== f.elements[name]) f.elements[name].value = s[name];
    }
    f.elements.heroic.checked = s.heroic;
    for (const div of document.querySelectorAll(".boxes")) {
      for (const box of div.querySelectorAll("input")) {
        box.checked = s[div.dataset.for].includes(box.dataset.rung);
        box.disabled = div.dataset.for === "human" && s.heroic;
      }
    }
  }

  $("settings").addEventListener("change", () => {
    const f = $("settings");
    const data = { heroic: f.elements.heroic.checked };
    for (const name of ["d0", "D", "lam", "spot"]) data[name] = Number(f.elements[name].value);
    for (const div of document.querySelectorAll(".boxes")) {
      data[div.dataset.for] = [...div.querySelectorAll("input")].filter((b) => b.checked).map((b) => b.dataset.rung);
    }
    call("/api/settings", data);
  });

  poll();
})();
