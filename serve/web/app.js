// poolsim serve: the what-if page. Every control edits one --set override
// of the scenario; the overrides, in the order they were made, are the
// page's whole state, kept in the URL (?set=KEY=VALUE&set=...). Each change
// asks the server to simulate the scenario with them (/api/run, a stream
// of JSON lines), aborting the request of the change before.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  // The page's state.
  let base = null;          // /api/base: the scenario as given, the choices
  let overrides = new Map(); // key -> value, the overrides in force (accepted by the server)
  let current = null;       // the last result shown
  let previous = null;      // the result before it: the faint overlay
  let inflight = null;      // the AbortController of the running request
  let charts = [];

  const KEEPALIVE_STOPS = ['0s', '100ms', '250ms', '500ms', '1s', '2s', '5s', '10s', '15s', '20s', '30s', '45s', '1m',
    '90s', '2m', '5m', '10m', '30m', '1h'];
  const RATE_STOPS = [0.1, 0.2, 0.25, 0.33, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4, 5, 10];
  const CV_DISTS = ['lognormal', 'gamma', 'weibull'];
  // Tick spacings of the time axis, in seconds: round numbers of
  // milliseconds, seconds, minutes and hours.
  const TIME_INCRS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
    3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

  // ---- formatting (as report.Seconds and report.Number do) ----

  function sig(x, n) {
    if (x === 0) return '0';
    const d = n - 1 - Math.floor(Math.log10(Math.abs(x)));
    if (d < 0) { const p = Math.pow(10, -d); return String(Math.round(x / p) * p); }
    return String(parseFloat(x.toFixed(d)));
  }
  function seconds(x) {
    if (x == null || isNaN(x)) return 'n/a';
    if (x === 0) return '0';
    if (x < 1e-3) return sig(x * 1e6, 3) + ' µs';
    if (x < 1) return sig(x * 1e3, 3) + ' ms';
    if (x < 120) return sig(x, 3) + ' s';
    if (x < 7200) return Math.round(x / 60) + ' min';
    return sig(x / 3600, 3) + ' h';
  }
  function timeTick(x, span) {
    if (span >= 4 * 3600) return sig(x / 3600, 3) + ' h';
    if (span >= 240) return sig(x / 60, 3) + ' min';
    return sig(x, 3) + ' s';
  }

  // ---- the controls ----

  // A control edits one key. get(config) is the value the configuration
  // holds; the value written into the override is the control's text.
  function poolControls() {
    return [
      { key: 'pool.preset', name: 'preset', kind: 'select', choices: base.choices.presets, get: (c) => c.pool.preset },
      { key: 'pool.core', name: 'core', kind: 'text', slider: linear(0, 200), get: (c) => String(c.pool.core),
        hint: 'corePoolSize (Tomcat: minSpareThreads)' },
      { key: 'pool.max', name: 'max', kind: 'text', slider: linear(1, 1000, ['unbounded']), get: (c) => c.pool.max,
        hint: 'maximumPoolSize (Tomcat: maxThreads), or unbounded' },
      { key: 'pool.keepAlive', name: 'keepAlive', kind: 'text', slider: stops(KEEPALIVE_STOPS), get: (c) => c.pool.keepAlive,
        hint: 'how long an idle worker above core waits in poll() before it may exit' },
      { key: 'pool.allowCoreThreadTimeOut', name: 'allowCoreThreadTimeOut', kind: 'check', get: (c) => c.pool.allowCoreThreadTimeOut },
      { key: 'pool.prestart', name: 'prestart', kind: 'check', get: (c) => c.pool.prestart },
      { key: 'pool.queue.type', name: 'queue', kind: 'select', choices: base.choices.queues, queue: true, get: (c) => c.pool.queue },
      { key: 'pool.queue.capacity', name: 'capacity', kind: 'text', queue: true, get: (c) => c.pool.capacity,
        hint: 'a number or unbounded; linked, array and tomcat queues' },
      { key: 'pool.queue.fair', name: 'fair', kind: 'check', queue: true, get: (c) => c.pool.fair },
      { key: 'pool.queue.handOff', name: 'hand-off', kind: 'select', choices: base.choices.handOffs, queue: true, get: (c) => c.pool.handOff,
        hint: 'which idle worker gets the next task: the queue\'s own order, or a custom queue\'s FIFO or LIFO' },
      { key: 'pool.rejection', name: 'rejection', kind: 'select', choices: base.choices.policies, get: (c) => c.pool.rejection },
    ];
  }

  function linear(min, max, extra) { return { min: min, max: max, extra: extra || [] }; }
  function stops(list) { return { stops: list }; }

  // All controls, by key.
  const controls = new Map();

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of children || []) e.appendChild(c);
    return e;
  }

  function slug(key) { return key.replace(/[^A-Za-z0-9]+/g, '-'); }

  // buildControl makes the control's elements and wires its events.
  function buildControl(parent, ctl) {
    const id = 'c-' + slug(ctl.key);
    const wrap = el('div', { cls: 'control', id: id + '-wrap' });
    const name = el('span', { cls: 'name' }, [el('code', { text: ctl.name })]);
    if (ctl.hint) name.title = ctl.hint;
    let input;
    if (ctl.kind === 'select') {
      input = el('select', { id: id, name: ctl.key });
      for (const v of ctl.choices) input.appendChild(el('option', { value: v, text: v }));
    } else if (ctl.kind === 'check') {
      input = el('input', { id: id, name: ctl.key, type: 'checkbox' });
    } else {
      input = el('input', { id: id, name: ctl.key, type: 'text', spellcheck: 'false' });
    }
    wrap.appendChild(el('label', { for: id }, [name, input]));
    ctl.input = input;
    if (ctl.slider) {
      const r = el('input', { id: id + '-range', type: 'range', 'aria-label': ctl.name });
      if (ctl.slider.stops) { r.min = 0; r.max = ctl.slider.stops.length - 1; r.step = 1; } else { r.min = ctl.slider.min; r.max = ctl.slider.max; r.step = 1; }
      wrap.appendChild(r);
      ctl.range = r;
      r.addEventListener('input', () => {
        input.value = ctl.slider.stops ? ctl.slider.stops[+r.value] : String(r.value);
        changed(ctl);
      });
    }
    ctl.error = el('p', { cls: 'error', id: id + '-error', hidden: '' });
    wrap.appendChild(ctl.error);
    parent.appendChild(wrap);
    ctl.wrap = wrap;
    input.addEventListener('change', () => changed(ctl));
    controls.set(ctl.key, ctl);
  }

  // show puts a configuration's value into a control (and its slider).
  function show(ctl, value) {
    if (ctl.kind === 'check') ctl.input.checked = !!value;
    else if (ctl.kind === 'select') {
      if (![...ctl.input.options].some((o) => o.value === value)) ctl.input.appendChild(el('option', { value: value, text: value }));
      ctl.input.value = value;
    } else if (document.activeElement !== ctl.input) ctl.input.value = value;
    if (ctl.range) placeRange(ctl, value);
  }

  function placeRange(ctl, value) {
    const s = ctl.slider;
    if (s.stops) {
      const i = s.stops.indexOf(value);
      const secs = durationSeconds(value);
      let best = 0;
      s.stops.forEach((v, j) => { if (Math.abs(durationSeconds(v) - secs) < Math.abs(durationSeconds(s.stops[best]) - secs)) best = j; });
      ctl.range.value = i >= 0 ? i : best;
    } else {
      const n = value === 'unbounded' ? s.max : parseInt(value, 10);
      if (!isNaN(n)) { if (n > +ctl.range.max) ctl.range.max = n; ctl.range.value = n; }
    }
  }

  // durationSeconds reads a Go duration as the scenario files write them.
  function durationSeconds(s) {
    if (/^[0-9.]+$/.test(s)) return parseFloat(s);
    const units = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
    let total = 0;
    const re = /([0-9.]+)(h|ms|m|s|us|µs|ns)/g;
    let m;
    while ((m = re.exec(s)) !== null) total += parseFloat(m[1]) * units[m[2]];
    return total;
  }

  // ---- the traffic controls: per phase, a rate multiplier and the service law ----

  function buildPhase(parent, ph, i) {
    const box = el('div', { cls: 'phase', id: 'phase-' + i });
    box.appendChild(el('h4', { text: ph.label }));
    parent.appendChild(box);
    if (ph.process === 'burst' || ph.rate > 0) {
      const what = ph.process === 'burst' ? 'count' : 'rate';
      buildControl(box, {
        key: ph.path + '.arrivals.' + what, name: what + ' ×', kind: 'text', slider: stops(RATE_STOPS.map(String)), phase: i, mult: true,
        hint: (ph.process === 'burst' ? 'the tasks of each burst' : 'the arrival rate') + ', as a multiple of the scenario\'s',
        get: (c) => String(multiplier(i, c)),
      });
      const ctl = controls.get(ph.path + '.arrivals.' + what);
      ctl.readout = el('span', { cls: 'readout' });
      ctl.wrap.insertBefore(ctl.readout, ctl.error);
    }
    buildControl(box, { key: ph.path + '.service.dist', name: 'service law', kind: 'select', choices: base.choices.dists, service: i, get: (c) => c.phases[i].dist });
    buildControl(box, { key: ph.path + '.service.mean', name: 'mean', kind: 'text', service: i, get: (c) => c.phases[i].mean, hint: 'the mean service time, e.g. 200ms' });
    buildControl(box, { key: ph.path + '.service.cv', name: 'variability (cv)', kind: 'text', service: i, get: (c) => String(c.phases[i].cv),
      hint: 'coefficient of variation: 0 constant, 1 exponential' });
    if (ph.describe) box.appendChild(el('p', { cls: 'muted', text: ph.describe }));
  }

  // multiplier is a phase's rate (or burst count) over the scenario's.
  function multiplier(i, c) {
    const b = base.base.phases[i], p = c.phases[i];
    const m = b.process === 'burst' ? p.count / b.count : p.rate / b.rate;
    return parseFloat(m.toPrecision(3));
  }

  // ---- from a change to its overrides ----

  // overridesWith returns the overrides with the control's new value.
  function overridesWith(ctl) {
    const next = new Map(overrides);
    if (ctl.queue) {
      setOrDelete(next, 'pool.queue', queueValue(), queueValue(base.base));
      for (const k of [...next.keys()]) if (k.startsWith('pool.queue.')) next.delete(k);
      return next;
    }
    if (ctl.service !== undefined) {
      const ph = base.base.phases[ctl.service];
      setOrDelete(next, ph.path + '.service', serviceValue(ctl.service), serviceValue(ctl.service, ph));
      return next;
    }
    if (ctl.mult) {
      const i = ctl.phase, b = base.base.phases[i];
      const m = parseFloat(ctl.input.value);
      if (isNaN(m)) { next.set(ctl.key, ctl.input.value); return next; } // let the server say why
      const v = b.process === 'burst' ? String(Math.round(b.count * m)) : String(parseFloat((b.rate * m).toPrecision(6)));
      setOrDelete(next, ctl.key, v, b.process === 'burst' ? String(b.count) : String(b.rate));
      return next;
    }
    const v = ctl.kind === 'check' ? String(ctl.input.checked) : ctl.input.value.trim();
    setOrDelete(next, ctl.key, v, String(ctl.get(base.base)));
    return next;
  }

  function setOrDelete(m, key, value, baseValue) {
    if (value === baseValue) m.delete(key); else m.set(key, value);
  }

  // queueValue is the queue block the queue controls (or a configuration)
  // describe, with only the keys its type takes.
  function queueValue(c) {
    const get = (k) => {
      const ctl = controls.get(k);
      if (c) return ctl.get(c);
      return ctl.kind === 'check' ? ctl.input.checked : ctl.input.value.trim();
    };
    const type = get('pool.queue.type');
    const parts = ['type: ' + type];
    if (type !== 'synchronous' && type !== 'priority') parts.push('capacity: ' + get('pool.queue.capacity'));
    if (type === 'array' || type === 'synchronous') parts.push('fair: ' + get('pool.queue.fair'));
    if (get('pool.queue.handOff') !== 'natural') parts.push('handOff: ' + get('pool.queue.handOff'));
    return '{' + parts.join(', ') + '}';
  }

  // serviceValue is a phase's service law as the controls (or, given ph,
  // the configuration) describe it.
  function serviceValue(i, ph) {
    const path = base.base.phases[i].path;
    const get = (k) => (ph ? { dist: ph.dist, mean: ph.mean, cv: String(ph.cv) }[k] : controls.get(path + '.service.' + k).input.value.trim());
    const dist = get('dist');
    let v = '{dist: ' + dist + ', mean: ' + get('mean');
    if (CV_DISTS.indexOf(dist) >= 0) v += ', cv: ' + get('cv');
    return v + '}';
  }

  // ---- running ----

  function setsOf(m) { return [...m].map(([k, v]) => k + '=' + v); }
  function query(sets) { return sets.map((s) => 'set=' + encodeURIComponent(s)).join('&'); }

  // changed runs the overrides a control's change makes. While a slider
  // moves, each step aborts the run of the step before.
  function changed(ctl) {
    run(overridesWith(ctl), ctl, performance.now());
  }

  function status(text, busy) {
    $('status-text').textContent = text;
    $('status').classList.toggle('busy', !!busy);
    if (!busy) $('progress').hidden = true;
  }

  // stream fetches a URL that answers with JSON lines and hands each to
  // onMessage; false when the request was aborted or failed (said in the
  // status line).
  async function stream(url, ac, onMessage) {
    let resp;
    try {
      resp = await fetch(url, { signal: ac.signal });
      if (!resp.ok) throw new Error('the server answered ' + resp.status);
      const reader = resp.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return true;
        buf += dec.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line) onMessage(JSON.parse(line));
        }
      }
    } catch (e) {
      if (!ac.signal.aborted) status('the server did not answer: ' + e.message);
      return false;
    }
  }

  // run asks the server for the overrides' run, shows it, then asks for
  // its explanation. A later change aborts both requests.
  async function run(next, ctl, t0) {
    if (inflight) inflight.abort();
    const ac = new AbortController();
    inflight = ac;
    const sets = setsOf(next);
    status('simulating', true);
    for (const e of ['answer', 'explanation']) $(e).classList.add('stale');
    const timing = { t0: t0, sent: performance.now() };
    let accepted = false;
    await stream('/api/run?' + query(sets), ac, (msg) => {
      if (msg.type === 'result') timing.received = performance.now();
      if (msg.type === 'result') accepted = true;
      receive(msg, next, ctl, timing);
    });
    if (!accepted || ac.signal.aborted) return;
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))); // let the redraw paint first
    if (ac.signal.aborted) return;
    await stream('/api/explain?' + query(sets), ac, (msg) => receive(msg, next, ctl, timing));
    if (inflight === ac) inflight = null;
  }

  function receive(msg, next, ctl, timing) {
    switch (msg.type) {
      case 'progress':
        $('progress').hidden = false;
        $('progress').value = msg.done;
        status('simulating: ' + Math.round(100 * msg.done) + ' % of the run', true);
        break;
      case 'result':
        overrides = next;
        history.replaceState(null, '', msg.sets.length ? '?' + query(msg.sets) : location.pathname);
        if (current) previous = current;
        current = msg;
        $('progress').hidden = true;
        showResult(msg);
        timing.drawn = performance.now();
        requestAnimationFrame(() => {
          const now = performance.now(), ms = now - timing.t0;
          window.poolsimRedraw = { ms: ms, simMs: msg.simMs, sets: msg.sets, n: (window.poolsimRedraw ? window.poolsimRedraw.n : 0) + 1,
            waitMs: timing.sent - timing.t0, answerMs: timing.received - timing.sent, drawMs: timing.drawn - timing.received, paintMs: now - timing.drawn };
          status(base.name + ': simulated in ' + Math.round(msg.simMs) + ' ms, change to redraw ' + Math.round(ms) + ' ms' +
            (msg.incomplete ? ' — the run stopped early: ' + msg.incomplete : '') + '; explaining', true);
        });
        break;
      case 'explain':
      case 'whatifs':
        $('explanation').innerHTML = msg.html; // html/template markup from the server
        $('explanation').classList.remove('stale');
        if (msg.type === 'whatifs') status($('status-text').textContent.replace(/; explaining$/, '').replace(/; what-ifs$/, ''), false);
        else status($('status-text').textContent.replace(/; explaining$/, '') + '; what-ifs', true);
        break;
      case 'error':
        refuse(msg, ctl);
        break;
    }
  }

  // refuse shows the server's message beside the control that made the
  // change (or the one the message names), and keeps the last good state.
  function refuse(msg, ctl) {
    clearErrors();
    let target = ctl;
    if (!target && msg.key) {
      for (const c of controls.values()) if (msg.key === c.key || msg.key.startsWith(c.key + '.')) target = c;
    }
    status('refused: the last accepted run is shown', false);
    for (const e of ['answer', 'explanation']) $(e).classList.remove('stale');
    if (target) {
      target.error.textContent = msg.message;
      target.error.hidden = false;
      target.wrap.classList.add('invalid');
    } else {
      $('other-error').textContent = msg.message;
      $('other-error').hidden = false;
    }
  }

  function clearErrors() {
    for (const c of controls.values()) { c.error.hidden = true; c.wrap.classList.remove('invalid'); }
    $('other-error').hidden = true;
  }

  function showResult(msg) {
    $('answer').innerHTML = msg.answer; // html/template markup from the server
    $('answer').classList.remove('stale');
    $('summary').innerHTML = msg.summary;
    $('explanation').classList.add('stale');
    const c = msg.config;
    for (const ctl of controls.values()) {
      if (ctl.phase !== undefined && !c.phases[ctl.phase]) continue;
      show(ctl, ctl.get(c));
      ctl.wrap.classList.toggle('changed', isChanged(ctl));
      if (ctl.readout) {
        const p = c.phases[ctl.phase];
        ctl.readout.textContent = p.process === 'burst' ? p.count + ' tasks per burst' : sig(p.rate, 4) + ' tasks/s';
      }
    }
    enableControls(c);
    $('command').textContent = (msg.command ? msg.command + '\n\nor, with the downloaded file:\n' : '') + msg.fileCommand;
    $('download').href = '/api/scenario.yaml' + (msg.sets.length ? '?' + query(msg.sets) : '');
    $('download').setAttribute('download', msg.file);
    $('overrides').textContent = msg.sets.length ? msg.sets.length + ' change(s) from the scenario: --set ' + msg.sets.join(' --set ') : 'The scenario as given.';
    draw();
  }

  function isChanged(ctl) {
    if (ctl.queue) return overrides.has('pool.queue') || [...overrides.keys()].some((k) => k.startsWith('pool.queue.'));
    if (ctl.service !== undefined) return overrides.has(base.base.phases[ctl.service].path + '.service');
    return overrides.has(ctl.key);
  }

  // enableControls disables what the configuration does not take.
  function enableControls(c) {
    const q = c.pool.queue;
    for (const ctl of controls.values()) {
      let on = true;
      if (ctl.queue) on = c.pool.queueEditable;
      if (ctl.key === 'pool.keepAlive') on = c.pool.keepAliveEditable;
      if (['pool.core', 'pool.max', 'pool.prestart', 'pool.allowCoreThreadTimeOut'].indexOf(ctl.key) >= 0) on = c.pool.sizesEditable;
      if (ctl.key === 'pool.queue.capacity') on = on && q !== 'synchronous' && q !== 'priority';
      if (ctl.key === 'pool.queue.fair') on = on && (q === 'array' || q === 'synchronous');
      if (ctl.service !== undefined) {
        const ph = c.phases[ctl.service];
        on = ph.serviceEditable || ctl.key.endsWith('.dist');
        if (ctl.key.endsWith('.cv')) on = on && CV_DISTS.indexOf(ph.dist) >= 0;
      }
      ctl.input.disabled = !on;
      if (ctl.range) ctl.range.disabled = !on;
    }
  }

  // ---- the charts ----

  const COLORS = { busy: '#0072b2', timed: '#e69f00', untimed: '#009e73', core: '#1b1b1b', max: '#cc79a7',
    queue: '#56b4e9', rejected: '#d55e00', p50: '#009e73', p99: '#e69f00', wmax: '#999999', prev: 'rgba(60,60,60,0.35)' };

  // at returns a previous run's column resampled on the current samples
  // (the last previous sample at or before each time).
  function at(prevT, col, t) {
    const out = new Array(t.length);
    let j = 0;
    for (let i = 0; i < t.length; i++) {
      while (j + 1 < prevT.length && prevT[j + 1] <= t[i]) j++;
      out[i] = prevT.length && prevT[j] <= t[i] + 1e-9 ? col[j] : null;
    }
    return out;
  }

  // sparse reports whether a column has values with gaps on both sides,
  // which a line cannot show: then the points are drawn.
  function sparse(col) {
    for (let i = 0; i < col.length; i++) {
      if (col[i] != null && (i === 0 || col[i - 1] == null) && (i === col.length - 1 || col[i + 1] == null)) return true;
    }
    return false;
  }

  // eventMarks draws the run's runtime events (resizes, shutdowns) as
  // labelled vertical lines.
  function eventMarks(events) {
    return { hooks: { draw: [(u) => {
      const c = u.ctx;
      c.save();
      c.strokeStyle = '#5a5a5a';
      c.fillStyle = '#5a5a5a';
      c.setLineDash([3, 3]);
      c.font = Math.round(11 * devicePixelRatio) + 'px sans-serif';
      for (const e of events || []) {
        const x = Math.round(u.valToPos(e.at_s, 'x', true));
        c.beginPath();
        c.moveTo(x, u.bbox.top);
        c.lineTo(x, u.bbox.top + u.bbox.height);
        c.stroke();
        c.fillText(e.label, x + 4, u.bbox.top + 12 * devicePixelRatio);
      }
      c.restore();
    }] } };
  }

  function draw() {
    for (const u of charts) u.destroy();
    charts = [];
    const tl = current.timeline, t = tl.t_s || [];
    const span = t.length ? t[t.length - 1] - t[0] : 1;
    const prev = previous && previous.timeline.t_s ? previous.timeline : null;
    const prevCol = (name) => (prev && prev[name] ? at(prev.t_s, prev[name], t) : null);
    const width = Math.max(320, $('chart-threads').clientWidth || 800);
    const xAxis = { values: (u, vals) => vals.map((v) => timeTick(v, span)), label: 'time', incrs: TIME_INCRS };
    const line = (label, color, extra) => Object.assign({ label: label, stroke: color, width: 1.5, spanGaps: false, points: { show: false } }, extra || {});
    const faint = (label) => line(label, COLORS.prev, { width: 2, dash: [6, 4] });
    const marks = eventMarks(current.events);

    // Threads by state: the layers drawn as cumulative areas, each
    // opaque over the one above it; the legend shows each layer's own count.
    const busy = tl.busy, timed = tl.idle_timed, untimed = tl.idle_untimed;
    const layer2 = busy.map((b, i) => b + timed[i]);
    const layer3 = layer2.map((v, i) => v + untimed[i]);
    let top = Math.max(1, ...layer3, ...(tl.core || [0]));
    const p1 = prevCol('pool_size');
    if (p1) top = Math.max(top, ...p1.filter((v) => v != null));
    const own = (col) => (u, v, si, i) => (i == null ? '–' : col[i]);
    const xSeries = { label: 'time', value: (u, v) => (v == null ? '–' : seconds(v)) };
    const series = [xSeries,
      line('idle WAITING (take)', COLORS.untimed, { fill: COLORS.untimed, value: own(untimed) }),
      line('idle TIMED_WAITING (poll)', COLORS.timed, { fill: COLORS.timed, value: own(timed) }),
      line('busy', COLORS.busy, { fill: COLORS.busy, value: own(busy) })];
    const data = [t, layer3, layer2, busy];
    if (tl.core) { series.push(line('core', COLORS.core, { dash: [4, 4] })); data.push(tl.core); }
    const maxV = tl.max ? Math.max(...tl.max) : 0;
    if (tl.max && maxV <= 2 * top) { series.push(line('max', COLORS.max, { dash: [10, 3, 2, 3] })); data.push(tl.max); top = Math.max(top, maxV); }
    if (p1) { series.push(faint('previous run: pool size')); data.push(p1); }
    const threadsTitle = tl.max && maxV > 2 * top ? ' (max ' + (maxV >= 2147483647 ? 'unbounded' : maxV) + ' is off the scale)' : '';
    charts.push(new uPlot({
      title: 'Threads by state' + threadsTitle, width: width, height: 300, series: series, plugins: [marks],
      scales: { x: { time: false }, y: { range: [0, top * 1.05] } },
      axes: [xAxis, { label: 'threads' }],
    }, data, $('chart-threads')));

    // Queue and rejections.
    const qs = [xSeries, line('queue length', COLORS.queue, { fill: 'rgba(86,180,233,0.25)' }),
      line('rejected (cumulative)', COLORS.rejected, { scale: 'rej' })];
    const qd = [t, tl.queue_len, tl.rejected];
    const pq = prevCol('queue_len'), pr = prevCol('rejected');
    if (pq) { qs.push(faint('previous run: queue')); qd.push(pq); }
    if (pr) { qs.push(Object.assign(faint('previous run: rejected'), { scale: 'rej' })); qd.push(pr); }
    const rejTop = Math.max(1, ...tl.rejected, ...(pr || []).filter((v) => v != null));
    charts.push(new uPlot({
      title: 'Queue and rejections', width: width, height: 240, series: qs, plugins: [marks],
      scales: { x: { time: false }, y: { range: (u, mn, mx) => [0, Math.max(1, mx) * 1.05] }, rej: { range: [0, rejTop * 1.05] } },
      axes: [xAxis, { label: 'queued tasks' }, { scale: 'rej', side: 1, label: 'rejected', grid: { show: false } }],
    }, qd, $('chart-queue')));

    // Wait percentiles per interval.
    const secsAxis = { label: 'wait', values: (u, vals) => vals.map(seconds), size: 70 };
    const ws = [xSeries];
    const wd = [t];
    const wv = (u, v) => (v == null ? '–' : seconds(v));
    for (const [col, label, color] of [['wait_p50_s', 'wait p50', COLORS.p50], ['wait_p99_s', 'wait p99', COLORS.p99], ['wait_max_s', 'wait max', COLORS.wmax]]) {
      if (tl[col]) { ws.push(line(label, color, { value: wv, points: { show: sparse(tl[col]), size: 5 } })); wd.push(tl[col]); }
    }
    const pw = prevCol('wait_p99_s');
    if (pw) { ws.push(Object.assign(faint('previous run: wait p99'), { value: wv })); wd.push(pw); }
    charts.push(new uPlot({
      title: 'Wait per sample interval', width: width, height: 240, series: ws, plugins: [marks],
      scales: { x: { time: false }, y: { range: (u, mn, mx) => [0, Math.max(mx || 0, 1e-3) * 1.05] } },
      axes: [xAxis, secsAxis],
    }, wd, $('chart-wait')));
  }

  window.addEventListener('resize', () => {
    const w = Math.max(320, $('chart-threads').clientWidth);
    for (const u of charts) u.setSize({ width: w, height: u.height });
  });

  // ---- start ----

  async function start() {
    const resp = await fetch('/api/base');
    base = await resp.json();
    document.title = base.name + ' — poolsim serve';
    $('name').textContent = base.name;
    $('description').textContent = base.description || '';
    for (const ctl of poolControls()) buildControl($('pool'), ctl);
    if (base.base.traffic) $('traffic').appendChild(el('p', { cls: 'muted', text: 'The traffic is ' + base.base.traffic + '.' }));
    base.base.phases.forEach((ph, i) => buildPhase($('traffic'), ph, i));
    for (const s of new URLSearchParams(location.search).getAll('set')) {
      const eq = s.indexOf('=');
      if (eq > 0) overrides.set(s.slice(0, eq), s.slice(eq + 1));
    }
    $('reset').addEventListener('click', () => run(new Map(), null, performance.now()));
    run(new Map(overrides), null, performance.now());
  }

  start().catch((e) => status('could not load the page: ' + e.message));
})();
