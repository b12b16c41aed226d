// Progressive enhancement for Sightline's pages. Everything works without this file; it adds
// live scan progress, copy buttons, a confirmation before revoking a key, and charts (uPlot).
(() => {
  // The progress view polls its own state and reloads into the report when the scan ends.
  const progress = document.querySelector('[data-poll]');
  if (progress) {
    const label = progress.querySelector('[data-phase]');
    const elapsed = progress.querySelector('[data-elapsed]');
    const tick = async () => {
      try {
        const res = await fetch(progress.getAttribute('data-poll'), {
          headers: { accept: 'application/json' },
        });
        const state = await res.json();
        if (state.done) {
          location.reload();
          return;
        }
        if (label && state.label && label.textContent !== `${state.label}…`)
          label.textContent = `${state.label}…`;
        if (elapsed && state.elapsed) elapsed.textContent = state.elapsed;
      } catch {
        // a dropped poll is retried on the next tick
      }
      setTimeout(tick, 1500);
    };
    setTimeout(tick, 1000);
  }

  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const input = document.getElementById(button.getAttribute('data-copy'));
      if (!input) return;
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Press Ctrl+C';
      }
    });
  }

  // Code snippets: copy the text of the element named by data-copy-text.
  for (const button of document.querySelectorAll('[data-copy-text]')) {
    button.addEventListener('click', async () => {
      const block = document.getElementById(button.getAttribute('data-copy-text'));
      if (!block) return;
      try {
        await navigator.clipboard.writeText(block.textContent);
        button.textContent = 'Copied';
      } catch {
        const range = document.createRange();
        range.selectNodeContents(block);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = 'Press Ctrl+C';
      }
    });
  }

  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }

  // Counts on axes at any magnitude: 950, 12k, 1.2M (never cut to ",000").
  const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
  window.sightlineFormatCount = (n) => compact.format(n);

  // Long tables (data-page-size): the first rows, then a button shows the next page of them.
  // Without JavaScript every row shows.
  for (const table of document.querySelectorAll('table[data-page-size]')) {
    const size = Number(table.getAttribute('data-page-size'));
    const rows = [...(table.tBodies[0]?.rows ?? [])];
    if (!(size > 0) || rows.length <= size) continue;
    for (const r of rows.slice(size)) r.hidden = true;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'show-more';
    if (table.id) button.setAttribute('aria-controls', table.id);
    const label = () => {
      const left = rows.filter((r) => r.hidden).length;
      button.textContent = `Show ${Math.min(size, left)} more (${left} hidden)`;
    };
    label();
    button.addEventListener('click', () => {
      for (const r of rows.filter((x) => x.hidden).slice(0, size)) r.hidden = false;
      if (rows.some((r) => r.hidden)) label();
      else button.remove();
    });
    (table.closest('.table-wrap') ?? table).after(button);
  }

  // Charts: data-chart holds {x: epoch seconds[], series: [{label, values}], y?: 'count',
  // xRange?: [first, last] epoch seconds (a chosen date range: the axis spans it)}.
  // Dates read as the rest of the page does (UTC, "28 Nov 2026, 14:05 UTC"); the x axis spans
  // the data (a single scan is a dot in a one-day window, not a two-year axis); legends show the
  // latest values until a point is hovered.
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad2 = (n) => String(n).padStart(2, '0');
  const dayOf = (d) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  const clock = (d) => `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  const fullDate = (secs, daily) => {
    const d = new Date(secs * 1000);
    const date = `${dayOf(d)} ${d.getUTCFullYear()}`;
    return daily ? date : `${date}, ${clock(d)} UTC`;
  };
  const charts = document.querySelectorAll('[data-chart]');
  if (charts.length && window.uPlot) {
    const css = getComputedStyle(document.documentElement);
    const palette = ['--accent', '--good', '--fair', '--poor', '--muted'].map((v) =>
      css.getPropertyValue(v).trim(),
    );
    const extra = ['#8e44ad', '#16a085', '#d35400'];
    const colours = [...palette, ...extra];
    const made = [];
    for (const el of charts) {
      const data = JSON.parse(el.getAttribute('data-chart'));
      const width = () => Math.max(240, el.clientWidth);
      const daily = data.x.every((t) => t % 86400 === 0);
      const hasData = (i) => data.series.some((s) => s.values[i] !== null && s.values[i] !== undefined);
      const withData = data.x.map((_, i) => i).filter(hasData);
      const first = withData.length ? data.x[withData[0]] : data.x[0];
      const lastIdx = withData.length ? withData[withData.length - 1] : data.x.length - 1;
      const last = data.x[lastIdx];
      // Half a day either side of a lone point; a sliver of margin around a real span.
      const margin = last > first ? (last - first) * 0.03 : 43200;
      // A chosen date range (data.xRange: first and last day) is the axis, with the same margins.
      const [lo, hi] = data.xRange ?? [first, last];
      const xMargin = data.xRange ? Math.max((hi - lo) * 0.03, 43200) : margin;
      const xRange = [lo - xMargin, hi + xMargin];
      const spanDays = (hi - lo) / 86400;
      const opts = {
        width: width(),
        height: 200,
        tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: {
          x: { time: true, range: () => xRange },
          // Scores run 0-100; counts (data.y === 'count') start at 0 and grow with the data.
          y:
            data.y === 'count'
              ? { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] }
              : { range: [0, 100] },
        },
        axes: [
          {
            stroke: palette[4],
            grid: { stroke: 'rgba(128,128,128,.15)' },
            values: (_u, splits) =>
              splits.map((t) => {
                const d = new Date(t * 1000);
                return spanDays > 2 || daily ? dayOf(d) : `${dayOf(d)} ${clock(d)}`;
              }),
          },
          {
            stroke: palette[4],
            grid: { stroke: 'rgba(128,128,128,.15)' },
            size: 50,
            values: (_u, splits) => splits.map((v) => compact.format(v)),
          },
        ],
        series: [
          { value: (_u, v) => (v === null ? '–' : fullDate(v, daily)) },
          ...data.series.map((s, i) => ({
            label: s.label,
            stroke: colours[i % colours.length],
            width: i === 0 ? 2.5 : 1.5,
            points: { show: withData.length < 40 },
            spanGaps: false,
            value: (_u, v) => (v === null || v === undefined ? '–' : v.toLocaleString('en-GB')),
          })),
        ],
        legend: { show: true },
        hooks: {
          ready: [(u) => u.setLegend({ idx: lastIdx })],
          // Off the chart, the legend goes back to the latest values instead of blanks.
          setCursor: [
            (u) => {
              if (u.cursor.idx === null || u.cursor.idx === undefined) u.setLegend({ idx: lastIdx });
            },
          ],
        },
      };
      el.setAttribute('data-drawn', 'true');
      const plot = new window.uPlot(opts, [data.x, ...data.series.map((s) => s.values)], el);
      el.chart = plot; // for tests and the curious: the chart's scales and axis labels
      made.push([el, plot, width]);
    }
    window.addEventListener('resize', () => {
      for (const [, plot, width] of made) plot.setSize({ width: width(), height: 200 });
    });
  }
})();
