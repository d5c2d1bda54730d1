// lockstep's player page: steps through the traces embedded in this page
// (the JSON that `lockstep play --format json` writes) as the terminal UI's
// player does. No framework, nothing fetched: every text of a trace goes
// into the page as text (a few symbols drawn, see ICONS), never as HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const meta = JSON.parse($("lockstep-meta").textContent);
  const SPEEDS = [0.5, 1, 2, 4, 8, 16];

  // The page's own words, in both languages; %s are filled in order.
  const UI = {
    en: {
      first: "⇤ first", prev: "◀ back", play: "▶ play", pause: "⏸ pause", next: "step ▶", last: "last ⇥",
      speed: "speed", violation: "✗ next violation", stopat: "stop at ✗", impl: "implementation",
      compare: "compare", with: "with", divergence: "≠ divergence", story: "The story", index: "← all lessons",
      step: "step %s/%s", stepAt: "step %s", steps: "steps %s vs %s", playing: "▶ %s/s", stopsAt: "stops at ✗",
      lastCmd: "last command: ", divergeFrom: "≠ from step %s", noDivergence: "no divergence",
      noViolation: "no violation in this timeline: every invariant holds",
      noDiverge: "the two timelines never differ",
      needCompare: "d jumps to where two implementations differ: press c to compare first",
      oneImpl: "this page holds one implementation, so there is nothing to compare it with: lockstep site writes every implementation's run",
      tooMany: "these two runs have too many events at the same moments to be compared here",
      stopsOn: "autoplay stops at each violation", stopsOff: "autoplay runs to the end",
      t: "t", stock: "stock", clients: "Clients", invariants: "Invariants", noKeys: "(no keys)", down: "DOWN",
      noTTL: "no TTL", clock: "clock %s ahead", lag: "lag %s, %s pending", crashed: "crashed", paused: "PAUSED",
      parked: "⏸ parked", hung: "⧗ hung", holds: "✓ holds", brokeAt: "✗ step %s", noInflate:
        "this browser cannot unpack the page's traces (it lacks DecompressionStream): open the page in a current browser",
      keys: "→/l step · ←/h back · space play/pause · v violation · d divergence · c compare · i implementation · s stop at ✗ · g/G first/last · +/− speed · L English/中文",
    },
    zh: {
      first: "⇤ 第一步", prev: "◀ 上一步", play: "▶ 播放", pause: "⏸ 暂停", next: "下一步 ▶", last: "最后一步 ⇥",
      speed: "速度", violation: "✗ 下一个违规", stopat: "遇 ✗ 即停", impl: "锁实现",
      compare: "对比", with: "对比", divergence: "≠ 首次分歧", story: "故事", index: "← 全部课程",
      step: "第 %s/%s 步", stepAt: "第 %s 步", steps: "步骤 %s vs %s", playing: "▶ %s/秒", stopsAt: "遇 ✗ 即停",
      lastCmd: "上一条命令：", divergeFrom: "≠ 始于第 %s 步", noDivergence: "完全一致",
      noViolation: "这条时间线里没有违规：所有不变量都成立",
      noDiverge: "两条时间线完全一致，没有差异",
      needCompare: "d 跳到两种实现出现差异的地方：先按 c 进入对比",
      oneImpl: "这个页面只有一种实现，没有可对比的：lockstep site 会写出每种实现的运行",
      tooMany: "这两次运行在同一时刻的事件太多，无法在这里对比",
      stopsOn: "自动播放会在每个违规处停下", stopsOff: "自动播放一直放到结尾",
      t: "时间", stock: "库存", clients: "客户端", invariants: "不变量", noKeys: "（空）", down: "宕机",
      noTTL: "没有过期时间", clock: "时钟快了 %s", lag: "延迟 %s，%s 条待复制", crashed: "已崩溃", paused: "进程停顿",
      parked: "⏸ 被挂起", hung: "⧗ 卡死", holds: "✓ 成立", brokeAt: "✗ 第 %s 步", noInflate:
        "这个浏览器无法解开页面里的记录（缺少 DecompressionStream）：请用较新的浏览器打开",
      keys: "→/l 下一步 · ←/h 上一步 · 空格 播放/暂停 · v 违规 · d 分歧 · c 对比 · i 切换实现 · s 遇 ✗ 即停 · g/G 第一步/最后一步 · +/− 速度 · L English/中文",
    },
  };
  const BELIEFS = { idle: "未开始", waiting: "等待中", holds: "持有锁", lost: "丢锁", released: "已释放", releasing: "释放中", "gave-up": "已放弃" };
  const ROLES = { primary: "主库", replica: "从库", "primary (down)": "主库（宕机）", "cluster master": "集群主节点" };

  const st = {
    lang: meta.lang, impl: meta.impls[0].name, other: "", compare: false, step: 0, row: 0,
    playing: false, speed: 2, stopAt: false, flash: "", timer: 0, busy: false,
  };
  let tr = null, otr = null, rows = [], diverge = -1;
  // reveal: drawing brings the current row into the window's view. Not
  // when the page opens at no place its address names, so that it opens
  // at its top; from then on, always.
  let reveal = false;

  // ── Words ────────────────────────────────────────────────────────────
  const tx = (t) => (t ? (st.lang === "zh" ? t.zh : t.en) || "" : "");
  function ui(key, ...args) {
    let i = 0;
    return (UI[st.lang][key] ?? UI.en[key]).replace(/%s/g, () => String(args[i++]));
  }
  // secs is a duration in nanoseconds as Go's "%.1fs" prints it (ties to
  // even, as Go rounds an exact half).
  function secs(ns) {
    const x = Math.trunc(ns / 1e9) + (ns % 1e9) / 1e9;
    const ten = x * 10;
    if (Math.abs(ten % 1) === 0.5) {
      const f = Math.floor(ten);
      return ((f % 2 === 0 ? f : f + 1) / 10).toFixed(1) + "s";
    }
    return x.toFixed(1) + "s";
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) put(e, text);
    return e;
  }
  // The symbols the page draws (player.css's .icon) rather than leave to
  // the reader's fonts, which may lack them: with Debian's default fonts
  // ⏸ and ⧗ are boxes. The traces' texts keep the characters, as the
  // terminal prints them; the page shows each as its drawing, marked
  // data-sym with the character, hidden from screen readers (the words
  // beside it say it: "⏸ held").
  const ICONS = { "⏸": "pause", "⧗": "hourglass" };
  const SYMBOLS = new RegExp("([" + Object.keys(ICONS).join("") + "])", "u");
  function pieces(text) {
    return String(text).split(SYMBOLS).filter((s) => s !== "").map((s) => (ICONS[s] ? icon(s) : s));
  }
  function icon(sym) {
    const i = el("span", "icon icon-" + ICONS[sym]);
    i.dataset.sym = sym;
    i.setAttribute("aria-hidden", "true");
    return i;
  }
  // put sets an element's text, its symbols drawn.
  function put(e, text) { e.replaceChildren(...pieces(text)); }

  // ── Traces ───────────────────────────────────────────────────────────
  // A page for one run holds each trace as JSON (script.lockstep-trace);
  // a site's page holds them all as one gzipped array (#lockstep-traces).
  // Either way an event's snapshot holds only what changed since the
  // previous event's (web/changes.go); whole makes every snapshot whole,
  // sharing what did not change.
  const cache = new Map();
  let bundle = null;
  async function load(name) {
    if (!cache.has(name)) {
      const script = [...document.querySelectorAll("script.lockstep-trace")].find((s) => s.dataset.impl === name);
      cache.set(name, whole(script ? JSON.parse(script.textContent) : (await unbundle())[name]));
    }
    return cache.get(name);
  }
  function whole(t) {
    let prev = { servers: [], clients: [], resource: null };
    const fill = (now, before) => (now ? now.map((x, k) => x ?? before[k]) : before);
    for (const e of t.events) {
      const c = e.snapshot || {};
      e.snapshot = prev = { servers: fill(c.servers, prev.servers), clients: fill(c.clients, prev.clients), resource: c.resource || prev.resource };
    }
    return t;
  }
  function unbundle() {
    if (!bundle) bundle = inflate($("lockstep-traces"));
    return bundle;
  }
  async function inflate(script) {
    if (typeof DecompressionStream === "undefined") throw new Error(ui("noInflate"));
    const bytes = Uint8Array.from(atob(script.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const traces = JSON.parse(await new Response(stream).text());
    const names = script.dataset.impls.split(" ");
    return Object.fromEntries(names.map((n, i) => [n, traces[i]]));
  }

  // ── Lanes, as the TUI's timeline fills them (tui/render.go) ──────────
  const lanesOf = (t) => [...t.clients, ...t.servers, "stock"];
  function splitActor(actor) {
    const i = actor.search(/[./]/);
    return i < 0 ? [actor, false] : [actor.slice(0, i), actor.includes(".")];
  }
  function laneCells(t, i) {
    const e = t.events[i], cells = {};
    const [actor, bg] = splitActor(e.actor || "");
    const short = (bg ? "⟳ " : "") + tx(e.short);
    switch (e.kind) {
      case "expire": case "replicate": cells[e.server] = short; break;
      case "fault": cells[e.actor ? actor : e.server] = short; break;
      case "command": cells[actor] = short; cells[e.server] = effect(t, i, e.server); break;
      case "resource":
        cells[actor] = short;
        if (i > 0) {
          const c = stockCell(t.events[i - 1].snapshot.resource, e.snapshot.resource);
          if (c) cells.stock = c;
        }
        break;
      default: if (actor) cells[actor] = short;
    }
    return cells;
  }
  // replyIn: a reply in the page's language. lockstep's own errors (a
  // partition, a server down) are said in Chinese, as trace.Event.ReplyIn
  // says them; the server's and the client's words stay.
  const REPLY_ZH = [
    [/^\(error\) (\S+) cannot reach (\S+): i\/o timeout \(network partition\)$/, "(error) 网络分区：$1 连不上 $2（i/o timeout）"],
    [/^\(error\) (\S+)'s command ran on (\S+), but the reply was lost: i\/o timeout \(network partition\)$/, "(error) $1 的命令在 $2 上执行了，应答却因网络分区丢失（i/o timeout）"],
    [/^\(error\) dial (\S+): connection refused: server is down$/, "(error) $1 已宕机，连不上（connection refused）"],
    [/^\(error\) connection to (\S+) lost: server is down$/, "(error) $1 已宕机，连接中断"],
    [/^\(error\) dial (\S+): server is down$/, "(error) $1 已宕机，连不上"],
  ];
  function replyIn(reply) {
    if (st.lang !== "zh") return reply;
    for (const [re, zh] of REPLY_ZH) if (re.test(reply)) return reply.replace(re, zh);
    return reply;
  }
  // stockCell: the stock lane shows a write that landed as its new value,
  // and one the store refused as the value that stays (as the TUI does).
  function stockCell(before, after) {
    if (after.value !== before.value || (after.version || 0) !== (before.version || 0)) return "= " + after.value;
    if ((after.rejected || 0) > (before.rejected || 0)) return (st.lang === "zh" ? "仍为 " : "stays ") + after.value;
    return "";
  }
  function lockKey(snap, server, key) {
    const srv = snap.servers.find((s) => s.name === server);
    return srv && (srv.keys || []).find((k) => k.key === key);
  }
  // effect is what command i did to the lock's key on server.
  function effect(t, i, server) {
    const after = lockKey(t.events[i].snapshot, server, t.key);
    if (i === 0) return after ? "+ " + after.value : "";
    const before = lockKey(t.events[i - 1].snapshot, server, t.key);
    if (after && !before) return "+ " + after.value;
    if (!after && before) return "− " + before.value;
    if (!after) return "";
    if (after.value !== before.value) return "= " + after.value;
    const left = before.ttl_ns - (t.events[i].t_ns - t.events[i - 1].t_ns);
    if (before.ttl_ns > 0 && after.ttl_ns > left + Math.trunc(t.ttl_ns / 10)) return "⟳ " + after.value;
    if (before.ttl_ns < 0 && after.ttl_ns > 0) return "ttl " + secs(after.ttl_ns);
    return "";
  }
  // sideText is an event in a few words, for compare mode.
  function sideText(t, i) {
    if (i < 0) return "";
    const e = t.events[i];
    if (e.kind === "narration") return "» " + tx(e.text);
    if (e.kind === "violation") return "✗ " + tx(e.text);
    const who = e.actor || e.server || "";
    return e.kind === "command" ? `${who} ${e.server} ${tx(e.short)}` : `${who} ${tx(e.short)}`;
  }

  // ── Compare mode: two traces aligned (tui/align.go) ──────────────────
  // align lines two traces up as the TUI does: along their longest common
  // subsequence of steps, two points for an identical pair, one for a pair
  // in the same slot, and between equally good moves time order. The TUI
  // fills one table of scores for every pair of events, n × m; two events
  // pair only in the same slot, so at the same instant, and the best
  // alignment is the best one of each instant's events: here a table for
  // each instant that both traces have, Σ nₜ × mₜ cells (for the widest
  // lesson's two runs 5.5 million, where n × m is 1.5 billion: 6 GB). A
  // lesson's instant holds a few hundred events (a try on each of nine
  // servers for each of eight clients, its say lines); two runs whose
  // instants would need more than MAX_CELLS (256 MB) are not aligned
  // (null), and the page says so.
  const MAX_CELLS = 1 << 26;
  const slot = (e) => `${e.t_ns}|${e.kind}|${e.actor || ""}|${e.server || ""}`;
  const signature = (e) => slot(e) + "|" + (e.text ? e.text.en : "");
  function align(a, b) {
    const n = a.events.length, m = b.events.length;
    const ka = a.events.map(slot), kb = b.events.map(slot);
    const fa = a.events.map(signature), fb = b.events.map(signature);
    const score = scores(a, b, ka, kb, fa, fb);
    if (!score) return null;
    const out = [];
    let i = 0, j = 0, first = -1;
    while (i < n || j < m) {
      let p;
      if (i < n && j < m && fa[i] === fb[j] && score(i, j) === score(i + 1, j + 1) + 2) p = { l: i++, r: j++, same: true };
      else if (i < n && j < m && ka[i] === kb[j] && score(i, j) === score(i + 1, j + 1) + 1) p = { l: i++, r: j++, same: false };
      else {
        let skipA = j >= m;
        if (i < n && j < m) {
          const down = score(i + 1, j), right = score(i, j + 1);
          skipA = down > right || (down === right && a.events[i].t_ns <= b.events[j].t_ns);
        }
        p = skipA ? { l: i++, r: -1, same: false } : { l: -1, r: j++, same: false };
      }
      out.push(p);
      if (!p.same && first < 0) first = out.length - 1;
    }
    return [out, first];
  }
  // scores is score(i, j), the best alignment of a's events from i on with
  // b's from j on: the sum, over the instants from the later of the two
  // events' on, of the best alignment of what each trace has left there.
  function scores(a, b, ka, kb, fa, fb) {
    const n = a.events.length, m = b.events.length;
    const blocks = (t) => {
      const at = new Map();
      t.events.forEach((e, i) => { if (!at.has(e.t_ns)) at.set(e.t_ns, { from: i, to: i + 1 }); else at.get(e.t_ns).to = i + 1; });
      return at;
    };
    const ba = blocks(a), bb = blocks(b);
    const shared = [...ba.keys()].filter((t) => bb.has(t)).sort((x, y) => x - y);
    const size = (t) => (ba.get(t).to - ba.get(t).from + 1) * (bb.get(t).to - bb.get(t).from + 1);
    if (shared.reduce((n, t) => n + size(t), 0) > MAX_CELLS) return null;
    const table = new Map();
    let later = 0; // the scores of the instants after this one, whole
    for (let k = shared.length - 1; k >= 0; k--) {
      const t = shared[k], x = ba.get(t), y = bb.get(t);
      const w = y.to - y.from + 1, cells = new Int32Array((x.to - x.from + 1) * w);
      for (let i = x.to - 1; i >= x.from; i--) {
        for (let j = y.to - 1; j >= y.from; j--) {
          const c = (i - x.from) * w + (j - y.from);
          let best = Math.max(cells[c + w], cells[c + 1]);
          if (fa[i] === fb[j]) best = Math.max(best, cells[c + w + 1] + 2);
          else if (ka[i] === kb[j]) best = Math.max(best, cells[c + w + 1] + 1);
          cells[c] = best;
        }
      }
      table.set(t, { x, y, w, cells, later });
      later += cells[0];
    }
    // The instants after t's, whole, and t's own from a's i and b's j on.
    const at = (t, i, j) => {
      const s = table.get(t);
      return s.later + s.cells[(Math.max(i, s.x.from) - s.x.from) * s.w + (Math.max(j, s.y.from) - s.y.from)];
    };
    const after = (t) => { // the instants after t, whole
      let lo = 0, hi = shared.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (shared[mid] <= t) lo = mid + 1; else hi = mid; }
      return lo < shared.length ? at(shared[lo], -1, -1) : 0;
    };
    return (i, j) => {
      if (i >= n || j >= m) return 0;
      const t = Math.max(a.events[i].t_ns, b.events[j].t_ns);
      if (!table.has(t)) return after(t);
      return at(t, a.events[i].t_ns === t ? i : -1, b.events[j].t_ns === t ? j : -1);
    };
  }
  // sides are the events each trace shows at the current row.
  function sides() {
    let l = -1, r = -1;
    for (let i = 0; i <= st.row && i < rows.length; i++) {
      if (rows[i].l >= 0) l = rows[i].l;
      if (rows[i].r >= 0) r = rows[i].r;
    }
    return [l, r];
  }

  // ── Position ─────────────────────────────────────────────────────────
  const length = () => (st.compare ? rows.length : tr.events.length);
  const pos = () => (st.compare ? st.row : st.step);
  function setPos(i) {
    i = Math.max(0, Math.min(i, length() - 1));
    if (st.compare) st.row = i; else st.step = i;
  }
  function isViolation(i) {
    if (!st.compare) return tr.events[i].kind === "violation";
    const r = rows[i];
    return (r.l >= 0 && tr.events[r.l].kind === "violation") || (r.r >= 0 && otr.events[r.r].kind === "violation");
  }
  function nextViolation() {
    const n = length();
    for (let d = 1; d <= n; d++) {
      const i = (pos() + d) % n;
      if (isViolation(i)) return i;
    }
    return -1;
  }
  // A place that survives a switch of implementation: an instant, and how
  // many events into it.
  function positionOf(t, i) {
    let k = 0;
    for (let j = i - 1; j >= 0 && t.events[j].t_ns === t.events[i].t_ns; j--) k++;
    return { t: t.events[i].t_ns, k };
  }
  function here() {
    if (!st.compare) return positionOf(tr, st.step);
    const [l, r] = sides();
    return l >= 0 ? positionOf(tr, l) : positionOf(otr, r);
  }
  function stepAt(t, p) {
    let best = 0;
    for (let i = 0; i < t.events.length && t.events[i].t_ns <= p.t; i++) {
      if (t.events[i].t_ns < p.t || positionOf(t, i).k <= p.k) best = i;
    }
    return best;
  }
  function rowAt(p) {
    let best = 0;
    rows.forEach((r, i) => {
      if (r.l < 0 || tr.events[r.l].t_ns > p.t) return;
      if (tr.events[r.l].t_ns < p.t || positionOf(tr, r.l).k <= p.k) best = i;
    });
    return best;
  }

  // ── Drawing ──────────────────────────────────────────────────────────
  function drawStatics() {
    document.documentElement.lang = st.lang === "zh" ? "zh-Hans" : "en";
    document.querySelectorAll("[data-t]").forEach((e) => put(e, ui(e.dataset.t)));
    document.querySelectorAll("[data-key]").forEach((e) => { e.title = e.dataset.key; });
    document.querySelectorAll("#langs button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.lang === st.lang)));
    $("scenario").textContent = meta.scenario;
    put($("title"), tx(meta.title));
    put($("summary"), tx(meta.summary));
    put($("keys"), ui("keys"));
    const story = meta.story && meta.story[st.lang];
    $("story").hidden = !story;
    $("story-text").innerHTML = story || ""; // rendered and escaped by lockstep (web/markdown.go)
    const hash = st.lang === "zh" ? "#lang=zh" : "";
    const nav = [];
    if (meta.index) nav.push(link(meta.index + hash, ui("index")));
    if (meta.prev) nav.push(link(meta.prev + ".html" + hash, "‹ " + meta.prev));
    if (meta.next) nav.push(link(meta.next + ".html" + hash, meta.next + " ›"));
    $("nav").replaceChildren(...nav);
    drawPickers();
  }
  function link(href, label) {
    const a = el("a", "", label);
    a.href = href;
    return a;
  }
  function invName(id) {
    const info = meta.invariants.find((m) => m.id === id);
    return info && st.lang === "zh" ? info.name.zh : id;
  }
  function drawPickers() {
    const fill = (sel, skip) => {
      sel.replaceChildren(...meta.impls.filter((m) => m.name !== skip).map((m) => {
        const o = el("option", "", m.name + (m.broken && m.broken.length ? " ✗ " + m.broken.map(invName).join(" ") : " ✓"));
        o.value = m.name;
        o.title = tx(m.summary);
        return o;
      }));
    };
    fill($("impl"), "");
    fill($("other"), st.impl);
    $("impl").value = st.impl;
    $("other").value = st.other;
    const many = meta.impls.length > 1;
    $("impl").disabled = !many;
    $("compare").hidden = $("divergence").hidden = !many;
    $("other-label").hidden = !(many && st.compare);
    $("speed").replaceChildren(...SPEEDS.map((s, i) => {
      const o = el("option", "", s + "/s");
      o.value = String(i);
      return o;
    }));
    $("speed").value = String(st.speed);
  }

  // ── The timeline ─────────────────────────────────────────────────────
  // A timeline of up to WINDOW rows is drawn whole. A longer one (the
  // widest lesson's run has 38,674 events: a row each, 770,000 cells,
  // 2.7 GB in Chromium) draws the WINDOW rows around what is
  // in view, between two empty rows as tall as the rows they stand for
  // would be (at the drawn rows' mean height), so that the scroller's
  // range and its bar are the whole timeline's. Scrolling near the end of
  // the drawn rows, or to a place they do not reach, draws the window
  // there, keeping the row at the top of the view where it was; moving
  // the cursor outside it draws it around the cursor (markCurrent).
  const WINDOW = 300;
  const win = { lo: 0, hi: 0, height: 24 }; // the drawn rows, and their mean height in px
  function drawTimeline() {
    const table = $("timeline");
    table.replaceChildren();
    table.classList.toggle("compare", st.compare);
    const head = el("tr");
    if (st.compare) {
      head.append(el("th", "t", ui("t")), el("th", "", st.impl), el("th", "sep", ""), el("th", "", st.other));
    } else {
      head.append(el("th", "t", ui("t")), el("th", "n", "#"));
      lanesOf(tr).forEach((l) => {
        const th = el("th", "", l === "stock" ? ui("stock") : l);
        th.dataset.lane = l;
        head.append(th);
      });
    }
    table.append(el("thead"), el("tbody"));
    table.tHead.append(head);
    drawRows(pos() - Math.floor(WINDOW / 3));
  }
  // drawRows draws the window of rows from lo (within the timeline).
  function drawRows(lo) {
    const n = length(), body = $("timeline").tBodies[0];
    win.lo = Math.max(0, Math.min(lo, n - WINDOW));
    win.hi = Math.min(n, win.lo + WINDOW);
    const row = st.compare ? compareRow : eventRow, lanes = st.compare ? [] : lanesOf(tr);
    const drawn = [];
    for (let i = win.lo; i < win.hi; i++) drawn.push(row(i, lanes));
    body.replaceChildren(gap(win.lo), ...drawn, gap(n - win.hi));
    if (drawn.length > 0 && n > WINDOW) {
      const top = drawn[0].getBoundingClientRect().top, bottom = drawn[drawn.length - 1].getBoundingClientRect().bottom;
      if (bottom > top) win.height = (bottom - top) / drawn.length;
    }
    body.querySelectorAll("tr.gap").forEach((g) => { g.firstChild.style.height = g.dataset.rows * win.height + "px"; });
  }
  // gap stands for rows not drawn; none when there are none.
  function gap(rows) {
    if (rows <= 0) return "";
    const g = el("tr", "gap");
    g.dataset.rows = String(rows);
    g.setAttribute("aria-hidden", "true");
    const td = el("td");
    td.colSpan = st.compare ? 4 : 2 + lanesOf(tr).length;
    g.append(td);
    return g;
  }
  const drawnRow = (i) => $("timeline").querySelector(st.compare ? `tr[data-row="${i}"]` : `tr[data-step="${i}"]`);
  // follow draws the window where the timeline's scroller shows rows it
  // lacks, or shows rows within a screen of its end.
  function follow() {
    const n = length(), box = $("timeline-box");
    if (n <= WINDOW || !tr) return;
    const top = drawnRow(win.lo), end = drawnRow(win.hi - 1);
    if (!top || !end) return;
    const b = box.getBoundingClientRect(), screen = box.clientHeight;
    const first = top.getBoundingClientRect(), last = end.getBoundingClientRect();
    const above = win.lo === 0 || first.top <= b.top - screen, below = win.hi === n || last.bottom >= b.bottom + screen;
    if (above && below) return;
    // The row at the view's top: drawn, or one the gaps stand for.
    let at;
    if (first.top > b.top) at = Math.max(0, win.lo - Math.ceil((first.top - b.top) / win.height));
    else if (last.bottom < b.top) at = Math.min(n - 1, win.hi + Math.floor((b.top - last.bottom) / win.height));
    else for (at = win.lo; at < win.hi - 1 && drawnRow(at).getBoundingClientRect().bottom <= b.top; at++);
    const inside = at >= win.lo && at < win.hi;
    const was = inside ? drawnRow(at).getBoundingClientRect().top : b.top;
    drawRows(at - Math.floor(WINDOW / 3));
    box.scrollTop += drawnRow(at).getBoundingClientRect().top - was;
  }
  function eventRow(i, lanes) {
    const e = tr.events[i];
    const row = el("tr", "k-" + e.kind);
    row.dataset.step = String(i);
    row.append(el("td", "t", secs(e.t_ns).slice(0, -1)), el("td", "n", String(i)));
    if (e.kind === "narration" || e.kind === "violation") {
      const td = el("td", "say", (e.kind === "violation" ? "✗ " : "» ") + tx(e.text));
      td.colSpan = lanes.length;
      row.append(td);
      return row;
    }
    const cells = laneCells(tr, i);
    lanes.forEach((l) => {
      const td = el("td", "", cells[l] || "");
      td.dataset.lane = l;
      row.append(td);
    });
    return row;
  }
  function compareRow(i) {
    const r = rows[i];
    const t = r.l >= 0 ? tr.events[r.l].t_ns : otr.events[r.r].t_ns;
    const row = el("tr", r.same ? "same" : "differ");
    row.dataset.row = String(i);
    row.dataset.l = String(r.l);
    row.dataset.r = String(r.r);
    if (i === diverge) row.classList.add("diverge");
    if (isViolation(i)) row.classList.add("k-violation");
    row.append(el("td", "t", secs(t).slice(0, -1)), el("td", "side", sideText(tr, r.l)),
      el("td", "sep", r.same ? "│" : "≠"), el("td", "side", sideText(otr, r.r)));
    return row;
  }

  // draw shows the current position: the cursor, the state, the words.
  function draw() {
    const main = $("player");
    main.dataset.step = String(st.compare ? sides()[0] : st.step);
    main.dataset.row = String(st.row);
    main.dataset.compare = String(st.compare);
    main.dataset.impl = st.impl;
    put($("play"), ui(st.playing ? "pause" : "play"));
    $("stopat").setAttribute("aria-pressed", String(st.stopAt));
    $("compare").setAttribute("aria-pressed", String(st.compare));
    put($("status"), st.compare ? compareStatus() : status());
    put($("flash"), st.flash);
    if (st.compare) drawCompareNow(); else drawNow();
    markCurrent(); // last: what is drawn above the timeline moves it
    writeHash();
  }
  // markCurrent marks the current row and keeps it in view. In the
  // timeline's scroller, below its sticky header: out of sight, it moves a
  // third of the way down the part of the scroller in the window (the
  // scroller can reach below the fold), or of the whole scroller when
  // little of it is in the window. Then in the window, by as little as it
  // takes (on a phone the timeline starts below the fold).
  function markCurrent() {
    const box = $("timeline-box");
    box.querySelectorAll("tr.current").forEach((r) => { r.classList.remove("current"); r.removeAttribute("aria-current"); });
    if (pos() < win.lo || pos() >= win.hi) drawRows(pos() - Math.floor(WINDOW / 3));
    const row = drawnRow(pos());
    if (!row) return;
    row.classList.add("current");
    row.setAttribute("aria-current", "step");
    const head = $("timeline").tHead, h = head ? head.getBoundingClientRect().height : 0;
    box.style.scrollPaddingTop = h + "px"; // scrollIntoView keeps clear of the header
    const r = row.getBoundingClientRect(), b = box.getBoundingClientRect();
    let top = b.top + box.clientTop + h, bottom = b.top + box.clientTop + box.clientHeight;
    const seenTop = Math.max(top, 0), seenBottom = Math.min(bottom, document.documentElement.clientHeight);
    if (seenBottom - seenTop >= 3 * r.height) [top, bottom] = [seenTop, seenBottom];
    if (r.top < top || r.bottom > bottom) box.scrollTop += r.top - top - (bottom - top) / 3;
    if (reveal) row.scrollIntoView({ block: "nearest" });
  }
  function status() {
    const e = tr.events[st.step];
    const parts = [st.impl, ui("step", st.step, tr.events.length - 1), "t=" + secs(e.t_ns)];
    if (st.playing) parts.push(ui("playing", SPEEDS[st.speed]));
    if (st.stopAt) parts.push(ui("stopsAt"));
    return parts.join(" · ");
  }
  function compareStatus() {
    const [l, r] = sides();
    const n = (i) => (i < 0 ? "–" : String(i));
    const at = l === r ? ui("stepAt", l) : ui("steps", n(l), n(r));
    const t = l >= 0 ? tr.events[l].t_ns : r >= 0 ? otr.events[r].t_ns : 0;
    let div = ui("noDivergence");
    if (diverge >= 0) div = ui("divergeFrom", Math.max(rows[diverge].l, rows[diverge].r));
    const parts = [`${st.impl} vs ${st.other}`, at, "t=" + secs(t), div];
    if (st.playing) parts.push(ui("playing", SPEEDS[st.speed]));
    return parts.join(" · ");
  }

  function drawNow() {
    const e = tr.events[st.step];
    const say = el("p", "say k-" + e.kind, (e.kind === "violation" ? "✗ " : "") + tx(e.text));
    $("narration").replaceChildren(say);
    $("command").replaceChildren(commandLine(tr, st.step));
    $("band").classList.remove("compare");
    $("servers").replaceChildren(...serverLines(tr, st.step));
    $("clients").replaceChildren(...clientLines(tr, st.step));
    $("invariants").replaceChildren(...invariantLines(tr, st.step));
  }
  function drawCompareNow() {
    const [l, r] = sides();
    const say = (t, i, name) => {
      const p = el("p", "say" + (i >= 0 ? " k-" + t.events[i].kind : ""));
      p.append(el("b", "", name + ": "), ...pieces(i >= 0 ? tx(t.events[i].text) : ""));
      return p;
    };
    $("narration").replaceChildren(say(tr, l, st.impl), say(otr, r, st.other));
    $("command").replaceChildren(l >= 0 ? commandLine(tr, l, st.impl) : "", r >= 0 ? commandLine(otr, r, st.other) : "");
    $("band").classList.add("compare");
    $("invariants").replaceChildren(el("h2", "", st.impl), ...invariantLines(tr, l).slice(1));
    $("clients").replaceChildren(el("h2", "", st.other), ...invariantLines(otr, r).slice(1));
    $("servers").replaceChildren();
  }
  // commandLine is the step's redis-cli command and reply, or the last one
  // before it, dimmed.
  function commandLine(t, i, side) {
    for (let j = i; j >= 0; j--) {
      const e = t.events[j];
      if (e.kind !== "command") continue;
      const p = el("p", j === i ? "cmd" : "cmd dim");
      if (side) p.append(el("b", "", side + ": "));
      if (j !== i) p.append(el("span", "", ui("lastCmd")));
      p.append(el("code", "", `${e.server}> ${e.command}`), el("span", "arrow", " → "), el("code", "reply", replyIn(e.reply || "")));
      return p;
    }
    return el("p", "cmd dim", "");
  }

  function serverLines(t, i) {
    const snap = t.events[i].snapshot;
    const out = [el("h2", "", "Redis · " + t.key)];
    for (const srv of snap.servers) {
      const line = el("p", "server", srv.name + " ");
      line.dataset.server = srv.name;
      const role = srv.replica_of ? "replica" : srv.role;
      line.append(el("span", "dim", st.lang === "zh" ? ROLES[role] || role : role));
      out.push(line);
      if (!srv.up) { line.append(" ", el("span", "bad", ui("down"))); continue; }
      if (srv.replica_of) out.push(el("p", "dim indent", ui("lag", secs(srv.lag_ns || 0), srv.pending || 0)));
      if (srv.clock_ahead_ns > 0) out.push(el("p", "warn indent", ui("clock", secs(srv.clock_ahead_ns))));
      const keys = srv.keys || [];
      if (keys.length === 0) line.append(" ", el("span", "dim", ui("noKeys")));
      for (const k of keys) out.push(keyLine(t, k));
    }
    return out;
  }
  function keyLine(t, k) {
    const label = k.key === t.key ? "lock" : k.key === "{" + t.key + "}:fence" ? "fence" : k.key;
    const p = el("p", "key indent", label + "=" + k.value + " ");
    if (k.ttl_ns < 0) { p.append(el("span", "warn", ui("noTTL"))); return p; }
    const filled = Math.max(0, Math.min(6, Math.floor(6 * k.ttl_ns / t.ttl_ns + 0.5)));
    p.append(el("span", "bar", "█".repeat(filled)), el("span", "dim", "░".repeat(6 - filled)), " " + secs(k.ttl_ns));
    return p;
  }
  function clientLines(t, i) {
    const snap = t.events[i].snapshot;
    const out = [el("h2", "", ui("clients"))];
    for (const c of snap.clients) {
      const p = el("p", "client", c.name + " ");
      p.dataset.client = c.name;
      out.push(p);
      if (c.crashed) { p.append(el("span", "bad", ui("crashed"))); continue; }
      // A release under way: the belief is released already, commands of
      // the release are still to go (the TUI's client list says so too).
      const said = c.belief === "released" && c.op === "release" ? "releasing" : c.belief;
      const belief = st.lang === "zh" ? BELIEFS[said] || said : said;
      p.append(el("span", c.belief === "holds" ? "holds" : "", belief));
      if (c.belief === "holds" && c.token) p.append(" " + c.token);
      if (c.belief === "holds" && c.fence > 0) p.append(" ⚑" + c.fence);
      // A reader's hold of a read-write lock, shared with the other readers.
      if (c.belief === "holds" && c.read_lock) p.append(st.lang === "zh" ? "（读）" : " (read)");
      if (c.paused) p.append(" ", el("span", "warn", ui("paused")));
      if (c.held) p.append(" ", el("span", "warn", ui("parked")));
      if (c.hung) p.append(" ", el("span", "warn", ui("hung")));
    }
    const r = snap.resource;
    out.push(el("p", "stock", `${ui("stock")} ${r.value} (v${r.version})` + (r.max_fence > 0 ? ` ⚑≥${r.max_fence}` : "")));
    return out;
  }
  // invariantLines: each invariant with ✓, or ✗ and the step where it
  // broke once the cursor is there, and why.
  function invariantLines(t, i) {
    const out = [el("h2", "", ui("invariants"))];
    for (const v of t.verdicts) {
      const info = meta.invariants.find((m) => m.id === v.invariant);
      const broken = v.broken && i >= 0 && v.step <= i;
      const p = el("p", "inv " + (broken ? "broken" : "ok"));
      p.dataset.invariant = v.invariant;
      p.title = info ? tx(info.rule) : "";
      p.append(el("span", "name", invName(v.invariant)), " ",
        el("span", "mark", broken ? ui("brokeAt", v.step) : "✓"));
      if (broken && v.reason) p.append(el("span", "why", tx(v.reason)));
      out.push(p);
    }
    return out;
  }

  // ── The address: #step=33, or #impl=…&vs=…&row=… in compare mode ─────
  function writeHash() {
    const p = new URLSearchParams();
    if (st.impl !== meta.impls[0].name || st.compare) p.set("impl", st.impl);
    if (st.compare) { p.set("vs", st.other); p.set("row", st.row); } else p.set("step", st.step);
    if (st.lang !== meta.lang) p.set("lang", st.lang);
    const h = "#" + p.toString();
    if (location.hash !== h) history.replaceState(null, "", h);
  }
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const known = (n) => meta.impls.some((m) => m.name === n);
    if (p.get("lang") === "zh" || p.get("lang") === "en") st.lang = p.get("lang");
    if (known(p.get("impl"))) st.impl = p.get("impl");
    st.compare = known(p.get("vs")) && p.get("vs") !== st.impl;
    if (st.compare) st.other = p.get("vs");
    const n = (k, d) => (/^\d+$/.test(p.get(k) || "") ? Number(p.get(k)) : d);
    st.step = n("step", meta.step);
    st.row = n("row", 0);
    if (p.has("step") || p.has("row")) reveal = true;
  }

  // ── Actions ──────────────────────────────────────────────────────────
  async function reload(keep) {
    st.busy = true;
    try {
      tr = await load(st.impl);
      otr = st.compare ? await load(st.other) : null;
      const aligned = st.compare ? align(tr, otr) : [[], -1];
      if (!aligned) {
        st.compare = false;
        otr = null;
        st.flash = ui("tooMany");
      }
      [rows, diverge] = aligned || [[], -1];
      if (keep) {
        if (st.compare) st.row = rowAt(keep); else st.step = stepAt(tr, keep);
      }
      setPos(pos());
      drawStatics();
      drawTimeline();
      draw();
      reveal = true;
      document.body.dataset.ready = "true";
    } catch (err) {
      $("narration").textContent = String(err.message || err);
      console.warn(err);
    } finally {
      st.busy = false;
    }
  }
  function move(i) { st.flash = ""; setPos(i); draw(); }
  function stop() { st.playing = false; clearTimeout(st.timer); }
  function tick() {
    if (!st.playing) return;
    if (pos() >= length() - 1) { stop(); draw(); return; }
    setPos(pos() + 1);
    if (st.stopAt && isViolation(pos())) stop();
    draw();
    if (st.playing) st.timer = setTimeout(tick, 1000 / SPEEDS[st.speed]);
  }
  const actions = {
    next: () => move(pos() + 1),
    prev: () => move(pos() - 1),
    first: () => move(0),
    last: () => move(length() - 1),
    play() {
      st.flash = "";
      if (st.playing) { stop(); draw(); return; }
      if (pos() >= length() - 1) setPos(0);
      st.playing = true;
      draw();
      st.timer = setTimeout(tick, 1000 / SPEEDS[st.speed]);
    },
    violation() {
      const i = nextViolation();
      if (i < 0) { st.flash = ui("noViolation"); draw(); } else move(i);
    },
    divergence() {
      if (!st.compare) st.flash = ui(meta.impls.length > 1 ? "needCompare" : "oneImpl");
      else if (diverge < 0) st.flash = ui("noDiverge");
      else { move(diverge); return; }
      draw();
    },
    stopat() {
      st.stopAt = !st.stopAt;
      st.flash = ui(st.stopAt ? "stopsOn" : "stopsOff");
      draw();
    },
    faster() { st.speed = Math.min(st.speed + 1, SPEEDS.length - 1); $("speed").value = String(st.speed); draw(); },
    slower() { st.speed = Math.max(st.speed - 1, 0); $("speed").value = String(st.speed); draw(); },
    compare() {
      if (meta.impls.length < 2) { st.flash = ui("oneImpl"); draw(); return; }
      const keep = here();
      st.compare = !st.compare;
      if (st.compare) st.other = meta.partners[st.impl] || meta.impls.find((m) => m.name !== st.impl).name;
      st.flash = "";
      reload(keep);
    },
    impl() { switchTo(nextImpl(st.compare ? st.other : st.impl, st.impl)); },
    lang() { setLang(st.lang === "en" ? "zh" : "en"); },
  };
  function nextImpl(cur, skip) {
    const names = meta.impls.map((m) => m.name);
    const i = names.indexOf(cur);
    for (let d = 1; d < names.length; d++) {
      const n = names[(i + d) % names.length];
      if (n !== skip || !st.compare) return n;
    }
    return cur;
  }
  // switchTo shows another implementation (compare mode's other side),
  // at the same moment of the timeline.
  function switchTo(name) {
    if (meta.impls.length < 2) { st.flash = ui("oneImpl"); draw(); return; }
    const keep = here();
    if (st.compare) st.other = name; else st.impl = name;
    st.flash = "";
    reload(keep);
  }
  function setLang(lang) {
    st.lang = lang;
    drawStatics();
    drawTimeline();
    draw();
  }

  const KEYS = {
    ArrowRight: "next", l: "next", ArrowLeft: "prev", h: "prev", " ": "play", v: "violation", d: "divergence",
    c: "compare", i: "impl", s: "stopat", g: "first", Home: "first", G: "last", End: "last",
    "+": "faster", "=": "faster", "-": "slower", _: "slower", L: "lang",
  };
  function onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || st.busy || !tr) return;
    if (ev.target.closest && ev.target.closest("select, input, textarea")) return;
    const name = KEYS[ev.key];
    if (!name) return;
    ev.preventDefault();
    if (ev.type === "keydown") actions[name]();
  }

  function wire() {
    document.addEventListener("keydown", onKey);
    // A focused button would take space as a click too.
    document.addEventListener("keyup", (ev) => { if (ev.key === " ") ev.preventDefault(); });
    for (const name of ["first", "prev", "play", "next", "last", "violation", "stopat", "compare", "divergence"]) {
      $(name).addEventListener("click", () => { if (!st.busy && tr) actions[name](); });
    }
    $("speed").addEventListener("change", () => { st.speed = Number($("speed").value); draw(); });
    $("impl").addEventListener("change", () => {
      const keep = here();
      st.impl = $("impl").value;
      if (st.other === st.impl) st.other = meta.partners[st.impl] || nextImpl(st.impl, st.impl);
      reload(keep);
    });
    $("other").addEventListener("change", () => switchTo($("other").value));
    document.querySelectorAll("#langs button").forEach((b) => b.addEventListener("click", () => setLang(b.dataset.lang)));
    let following = false;
    $("timeline-box").addEventListener("scroll", () => {
      if (following) return;
      following = true;
      requestAnimationFrame(() => { following = false; follow(); });
    });
    $("timeline").addEventListener("click", (ev) => {
      const row = ev.target.closest("tr[data-step], tr[data-row]");
      if (row) move(Number(st.compare ? row.dataset.row : row.dataset.step));
    });
    window.addEventListener("hashchange", () => {
      stop();
      readHash();
      reload(null);
    });
  }

  wire();
  readHash();
  reload(null);
})();
