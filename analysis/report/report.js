// Builds the report's charts with Chart.js from the JSON embedded in the page. After drawing, each
// canvas records how many pixels the library painted (data-painted), so a headless browser test
// can tell a drawn chart from an empty canvas, and each answer sentence ("What to pick", the
// comparison) where it lies on the page (data-top, data-bottom: CSS pixels from the top), so the
// test can tell it is on the first screen. A chart with labelled points (the Pareto fronts) also
// records how many labels it drew and left out (data-labels, data-labels-left-out).
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const colours = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
  const base = { animation: false, responsive: false, devicePixelRatio: 1, plugins: { legend: { position: 'bottom' } } };
  const axis = (title, extra) => Object.assign({ title: { display: true, text: title } }, extra || {});
  // An axis that fits its values, with the note of a narrow spread (analysis/narrow_spread.h) in
  // its title: "epoch time (s) — epoch times span 8.3 % (0.121–0.131 s)".
  const fittedAxis = (title, note) => axis(note ? title + ' — ' + note : title);
  const dashes = [[], [6, 3], [2, 2]];

  // Vertical dashed lines with labels at phase markers (Chart.js plugin API).
  const markerLines = {
    id: 'markerLines',
    afterDatasetsDraw(chart, args, opts) {
      if (!opts.markers) return;
      const { ctx, chartArea, scales } = chart;
      ctx.save();
      ctx.setLineDash([4, 4]);
      ctx.strokeStyle = '#555';
      ctx.fillStyle = '#222';
      ctx.font = '11px sans-serif';
      opts.markers.forEach((m, i) => {
        const x = scales.x.getPixelForValue(m.t_s);
        ctx.beginPath();
        ctx.moveTo(x, chartArea.top);
        ctx.lineTo(x, chartArea.bottom);
        ctx.stroke();
        ctx.fillText(m.label, x + 3, chartArea.top + 12 + (i % 3) * 12);
      });
      ctx.restore();
    },
  };

  // Labels beside the points of one dataset (the Pareto front's), from each point's `short`. Points
  // crowd, so each label takes the first place around its point, nearest first (ten places at four
  // distances, each moved inside the chart area where it would stick out), that covers no label
  // drawn before it, no point and not the front's line; a thin line joins a label set off from its point. A label with
  // no such place is left out (the table names every point). The chart records how many it drew
  // and left out.
  const pointLabels = {
    id: 'pointLabels',
    afterDatasetsDraw(chart, args, opts) {
      if (opts.dataset === undefined) return;
      const { ctx, chartArea } = chart;
      const meta = chart.getDatasetMeta(opts.dataset);
      const points = [];
      chart.data.datasets.forEach((d, i) => chart.getDatasetMeta(i).data.forEach((e) => points.push({ x: e.x, y: e.y })));
      // The front's line too, a point every 4 pixels along it, so that no label sits across it.
      meta.data.slice(1).forEach((e, i) => {
        const from = meta.data[i], steps = Math.ceil(Math.hypot(e.x - from.x, e.y - from.y) / 4);
        for (let k = 1; k < steps; k++) points.push({ x: from.x + (e.x - from.x) * k / steps, y: from.y + (e.y - from.y) * k / steps });
      });
      const boxes = [];
      const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const free = (b) => !boxes.some((o) => overlaps(o, b)) &&
        !points.some((p) => overlaps({ left: p.x - 4, right: p.x + 4, top: p.y - 4, bottom: p.y + 4 }, b));
      ctx.save();
      ctx.font = '11px sans-serif';
      ctx.textBaseline = 'top';
      let drawn = 0, left = 0;
      meta.data.forEach((element, i) => {
        const text = chart.data.datasets[opts.dataset].data[i].short;
        if (!text) return;
        const w = ctx.measureText(text).width, h = 12;
        const box = (dx, dy) => {
          const x = Math.max(chartArea.left, Math.min(element.x + dx, chartArea.right - w));
          const y = Math.max(chartArea.top, Math.min(element.y + dy, chartArea.bottom - h));
          return { left: x, top: y, right: x + w, bottom: y + h };
        };
        let place = null;
        for (const gap of [6, 20, 36, 52]) {
          const offsets = [[gap, -h - gap / 2], [gap, gap / 2], [-w - gap, -h - gap / 2], [-w - gap, gap / 2],
            [-w / 2, -h - gap], [-w / 2, gap], [gap, -h / 2], [-w - gap, -h / 2], [-4, -h - gap], [-4, gap]];
          place = offsets.map(([dx, dy]) => box(dx, dy)).find(free);
          if (place) break;
        }
        if (!place) { left++; return; }
        boxes.push(place);
        // A leader from the point to the label's nearest edge, where the label is set off.
        const x = Math.max(place.left, Math.min(element.x, place.right)), y = Math.max(place.top, Math.min(element.y, place.bottom));
        if (Math.hypot(x - element.x, y - element.y) > 9) {
          ctx.strokeStyle = 'rgba(60,60,60,0.6)';
          ctx.lineWidth = 1;
          ctx.beginPath();
          ctx.moveTo(element.x, element.y);
          ctx.lineTo(x, y);
          ctx.stroke();
        }
        ctx.fillStyle = 'rgba(255,255,255,0.8)';
        ctx.fillRect(place.left - 1, place.top - 1, w + 2, h + 1);
        ctx.fillStyle = '#222';
        ctx.fillText(text, place.left, place.top);
        drawn++;
      });
      ctx.restore();
      chart.canvas.dataset.labels = drawn;
      chart.canvas.dataset.labelsLeftOut = left;
    },
  };

  function paretoChart(group) {
    const point = (p) => ({ x: p.time_s, y: p.energy_j, label: p.mode + ' ' + p.axes, short: p.short });
    const all = group.points.map(point);
    const front = group.points.filter((p) => p.front).map(point);
    return {
      type: 'scatter',
      data: { datasets: [
        { label: 'Pareto front', data: front, showLine: true, borderColor: colours[1], backgroundColor: colours[1], pointRadius: 5 },
        { label: 'configurations', data: all, borderColor: '#888', backgroundColor: 'rgba(31,119,180,0.45)', pointRadius: 3 },
      ] },
      options: Object.assign({}, base, { scales: { x: fittedAxis(group.time_title, group.time_note), y: fittedAxis(group.energy_title, group.energy_note) },
        plugins: { legend: base.plugins.legend, pointLabels: { dataset: 0 },
          tooltip: { callbacks: { label: (c) => c.raw.label + ': ' + c.raw.x.toPrecision(4) + ' s, ' + c.raw.y.toPrecision(4) + ' J' } } } }),
      plugins: [pointLabels],
    };
  }

  function stallChart(group) {
    return {
      type: 'bar',
      data: { labels: group.rows.map((r) => r.setting), datasets: [
        { label: 'fetch stall (s)', data: group.rows.map((r) => r.stall_s), backgroundColor: colours[3] },
        { label: 'compute (s)', data: group.rows.map((r) => r.compute_s), backgroundColor: colours[0] },
      ] },
      options: Object.assign({}, base, { scales: { x: { stacked: true }, y: axis('seconds per epoch', { stacked: true }) } }),
    };
  }

  function traceChart(trace) {
    return {
      type: 'scatter',
      data: { datasets: [
        { label: 'power (W)', data: trace.samples.map((s) => ({ x: s[0], y: s[1] })), showLine: true, pointRadius: 0, borderWidth: 1.5, borderColor: colours[0] },
        { label: 'phase markers', data: trace.markers.map((m) => ({ x: m.t_s, y: m.power_w })), pointRadius: 5, pointStyle: 'triangle', backgroundColor: colours[1], borderColor: colours[1] },
      ] },
      options: Object.assign({}, base, { scales: { x: axis('time (s)'), y: axis('power (W)', { beginAtZero: true }) },
        plugins: { legend: base.plugins.legend, markerLines: { markers: trace.markers } } }),
      plugins: [markerLines],
    };
  }

  function predictionChart(group) {
    const pts = group.rows.map((r) => ({ x: r.measured_time_s, y: r.predicted_time_s, label: r.mode }));
    const values = pts.flatMap((p) => [p.x, p.y]);
    const lo = Math.min(...values), hi = Math.max(...values);
    return {
      type: 'scatter',
      data: { datasets: [
        { label: 'power modes (left out of the fit)', data: pts, backgroundColor: colours[2], pointRadius: 4 },
        { label: 'perfect prediction', data: [{ x: lo, y: lo }, { x: hi, y: hi }], showLine: true, pointRadius: 0, borderColor: '#999', borderDash: [6, 4] },
      ] },
      options: Object.assign({}, base, { scales: { x: fittedAxis('measured ' + group.time_title, group.time_note), y: fittedAxis('predicted ' + group.time_title, group.time_note) } }),
    };
  }

  // Every power mode of an adaptive_profile sweep on the time-energy plane: measured (profiled)
  // modes filled, predicted ones hollow, the predicted Pareto front joined, and each predicted front
  // point's interval drawn as a cross (time and energy bounds at the stored level).
  function predictedFrontChart(group) {
    const point = (p) => ({ x: p.time_s, y: p.energy_j, label: p.mode + (p.measured ? ' (measured)' : ' (predicted)'), short: p.short });
    const front = group.points.filter((p) => p.on_front);
    const crosses = [];
    front.filter((p) => !p.measured).forEach((p) => {
      crosses.push({ x: p.time_low_s, y: p.energy_j }, { x: p.time_high_s, y: p.energy_j }, { x: NaN, y: NaN });
      crosses.push({ x: p.time_s, y: p.energy_low_j }, { x: p.time_s, y: p.energy_high_j }, { x: NaN, y: NaN });
    });
    return {
      type: 'scatter',
      data: { datasets: [
        { label: 'predicted Pareto front', data: front.map(point), showLine: true, borderColor: colours[1], backgroundColor: colours[1], pointRadius: 5 },
        { label: 'measured (profiled)', data: group.points.filter((p) => p.measured).map(point), borderColor: colours[0], backgroundColor: colours[0], pointRadius: 4 },
        { label: 'predicted', data: group.points.filter((p) => !p.measured).map(point), borderColor: 'rgba(120,120,120,0.7)', backgroundColor: 'rgba(0,0,0,0)', pointRadius: 3 },
        { label: Math.round(100 * group.level) + ' % interval (front)', data: crosses, showLine: true, spanGaps: false, pointRadius: 0, borderColor: 'rgba(214,39,40,0.45)', borderWidth: 1 },
      ] },
      options: Object.assign({}, base, { scales: { x: fittedAxis('epoch time (s)', group.time_note), y: fittedAxis('epoch energy (J)', group.energy_note) },
        plugins: { legend: base.plugins.legend, pointLabels: { dataset: 0 },
          tooltip: { filter: (c) => c.raw.label !== undefined, callbacks: { label: (c) => c.raw.label + ': ' + c.raw.x.toPrecision(4) + ' s, ' + c.raw.y.toPrecision(4) + ' J' } } } }),
      plugins: [pointLabels],
    };
  }

  function latencyChart(rows) {
    const keys = ['avg', 'p50', 'p90', 'p95', 'p99', 'max'];
    return {
      type: 'bar',
      data: { labels: rows.map((r) => r.config), datasets: keys.map((k, i) => ({ label: k, data: rows.map((r) => r[k]), backgroundColor: colours[i % colours.length] })) },
      options: Object.assign({}, base, { scales: { y: axis('latency (ms)', { beginAtZero: true }) } }),
    };
  }

  // Each board kind against the baseline: speed-up at its fastest mode, performance per watt at its
  // least-energy mode; 1 is the baseline.
  function comparisonChart(group) {
    return {
      type: 'bar',
      data: { labels: group.rows.map((r) => r.kind), datasets: [
        { label: 'speed-up (fastest modes)', data: group.rows.map((r) => r.speedup), backgroundColor: colours[0] },
        { label: 'perf/W (least-energy modes)', data: group.rows.map((r) => r.perf_per_watt_ratio), backgroundColor: colours[2] },
      ] },
      options: Object.assign({}, base, { scales: { y: axis('× the baseline ' + group.baseline, { beginAtZero: true }) } }),
    };
  }

  // Samples/s per ranks against the ideal (linear from the smallest world), efficiency on its own axis.
  function scalingChart(curve) {
    const ranks = curve.points.map((p) => p.ranks);
    return {
      type: 'line',
      data: {
        labels: ranks,
        datasets: [
          {
            label: 'samples/s',
            data: curve.points.map((p) => p.samples_per_s),
            borderColor: colours[0],
            backgroundColor: colours[0],
            yAxisID: 'y'
          },
          {
            label: 'ideal',
            data: curve.points.map((p) => p.ideal_samples_per_s),
            borderColor: 'rgba(120,120,120,0.7)',
            borderDash: [4, 4],
            pointRadius: 0,
            yAxisID: 'y'
          },
          {
            label: 'efficiency',
            data: curve.points.map((p) => p.efficiency),
            borderColor: colours[2],
            backgroundColor: colours[2],
            yAxisID: 'efficiency'
          },
        ]
      },
      options: Object.assign({}, base, {
        scales: {
          x: axis('ranks'),
          y: axis('samples/s', {beginAtZero: true}),
          efficiency: Object.assign(axis('efficiency', {beginAtZero: true, max: 1.2}), {position: 'right'}),
        }
      }),
    };
  }

  // A phased run's loss over its optimizer steps (or, from an export, its epochs): one line per
  // phase, x numbered on through the run.
  function phasesChart(run) {
    const numbers = [...new Set(run.points.map((p) => p.phase))];
    return {
      type: 'line',
      data: {
        datasets: numbers.map((phase, i) => ({
          label: 'phase ' + phase,
          data: run.points.filter((p) => p.phase === phase).map((p) => ({ x: p.x, y: p.loss })),
          borderColor: colours[i % colours.length],
          backgroundColor: colours[i % colours.length],
          pointRadius: run.points.length > 200 ? 0 : 3,
          spanGaps: false
        }))
      },
      options: Object.assign({}, base, { scales: { x: axis(run.loss_over === 'step' ? 'optimizer step' : 'epoch', { type: 'linear' }), y: axis('loss') } }),
    };
  }

  // Each configuration's sequences/s (precision, world size), one bar per phase.
  function phasesThroughputChart(rows) {
    const labels = [...new Set(rows.map((r) => r.label))];
    const numbers = [...new Set(rows.map((r) => r.phase))].sort((a, b) => a - b);
    return {
      type: 'bar',
      data: {
        labels: labels,
        datasets: numbers.map((phase, i) => ({
          label: 'phase ' + phase,
          data: labels.map((label) => {
            const row = rows.find((r) => r.label === label && r.phase === phase);
            return row ? row.sequences_per_s : null;
          }),
          backgroundColor: colours[i % colours.length]
        }))
      },
      options: Object.assign({}, base, { scales: { y: axis('sequences/s', { beginAtZero: true }) } }),
    };
  }

  // The inference page: one line per series (sequence length, or batch) and figure, against the
  // group's x axis (batch size, or sequence length); a configuration not measured is a gap. Power
  // modes along x have no order between them: bars, one per figure.
  function inferenceChart(group, figures, title) {
    const bars = group.x_axis === 'mode';
    const datasets = [];
    group.series.forEach((series, s) => {
      figures.forEach(([key, name], f) => {
        const value = (x) => {
          const row = group.rows.find((r) => r.series === series && r.x === x);
          return row && row[key] !== null ? row[key] : null;
        };
        const colour = colours[(bars ? s * figures.length + f : s) % colours.length];
        datasets.push({ label: (series ? series + ' ' : '') + name, data: group.x_values.map(value), borderColor: colour,
          backgroundColor: colour, borderDash: bars ? [] : dashes[f % dashes.length], spanGaps: true });
      });
    });
    return {
      type: bars ? 'bar' : 'line',
      data: { labels: group.x_values, datasets: datasets },
      options: Object.assign({}, base, { scales: { x: axis(group.x_title), y: axis(title, { beginAtZero: true }) } }),
    };
  }

  // The batch-size page: per batch, the time per sample as fetch stall and the rest stacked (so the
  // bar is the whole), and the energy per sample.
  function batchTimeChart(group) {
    const labels = group.rows.map((r) => 'batch ' + r.batch);
    const datasets = [];
    if (group.has_stall) datasets.push({ label: 'fetch stall per sample (ms)', data: group.rows.map((r) => r.stall_per_sample_ms), backgroundColor: colours[3] });
    datasets.push({ label: group.has_stall ? 'the rest of the epoch per sample (ms)' : 'time per sample (ms)', data: group.rows.map((r) => r.rest_per_sample_ms), backgroundColor: colours[0] });
    return {
      type: 'bar',
      data: { labels: labels, datasets: datasets },
      options: Object.assign({}, base, { scales: { x: { stacked: true }, y: axis('ms per sample', { stacked: true, beginAtZero: true }) } }),
    };
  }

  function batchEnergyChart(group) {
    return {
      type: 'bar',
      data: { labels: group.rows.map((r) => 'batch ' + r.batch), datasets: [
        { label: 'energy per sample (mJ)', data: group.rows.map((r) => r.energy_per_sample_mj), backgroundColor: colours[2] },
      ] },
      options: Object.assign({}, base, { scales: { y: axis('mJ per sample', { beginAtZero: true }) } }),
    };
  }

  function configFor(kind) {
    const [name, index] = kind.split(':');
    switch (name) {
      case 'pareto': return paretoChart(data.pareto[+index]);
      case 'stall': return stallChart(data.stall[+index]);
      case 'trace': return traceChart(data.trace);
      case 'prediction': return predictionChart(data.prediction[+index]);
      case 'latency': return latencyChart(data.latency);
      case 'predicted-front': return predictedFrontChart(data.mode_predictions[+index]);
      case 'comparison': return comparisonChart(data.comparison.configurations[+index]);
      case 'scaling': return scalingChart(data.scaling[+index]);
      case 'phases': return phasesChart(data.phases.runs[+index]);
      case 'phases-throughput': return phasesThroughputChart(data.phases.throughput);
      case 'inference-latency': return inferenceChart(data.inference.groups[+index], [['p50_ms', 'p50'], ['p90_ms', 'p90'], ['p99_ms', 'p99']], 'latency of a query (ms)');
      case 'inference-throughput': return inferenceChart(data.inference.groups[+index], [['throughput', 'samples/s']], 'samples/s');
      case 'inference-energy': return inferenceChart(data.inference.groups[+index], [['energy_per_query_j', 'J/query'], ['energy_per_sample_j', 'J/sample']], 'joules');
      case 'batch-time': return batchTimeChart(data.batch[+index]);
      case 'batch-energy': return batchEnergyChart(data.batch[+index]);
    }
    throw new Error('unknown chart ' + kind);
  }

  function paintedPixels(canvas) {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) painted++;
    return painted;
  }

  let drawn = 0;
  const canvases = document.querySelectorAll('canvas[data-chart]');
  canvases.forEach((canvas) => {
    try {
      const chart = new Chart(canvas, configFor(canvas.dataset.chart));
      chart.draw();
      canvas.dataset.points = chart.data.datasets.reduce((n, d) => n + d.data.length, 0);
      canvas.dataset.painted = paintedPixels(canvas);
      if (+canvas.dataset.painted > 0) drawn++;
    } catch (e) {
      canvas.dataset.error = String(e);
    }
  });
  document.querySelectorAll('[data-answer]').forEach((p) => {
    const box = p.getBoundingClientRect();
    p.dataset.top = Math.round(box.top + window.scrollY);
    p.dataset.bottom = Math.round(box.bottom + window.scrollY);
  });
  document.body.dataset.chartsTotal = canvases.length;
  document.body.dataset.chartsDrawn = drawn;
})();
