// One visualization of a dashboard page: an element with data-visualization-key and data-state
// (loading | ready | error) that draws a v2 visualization result as the chart its type calls for
// (Chart.js, served by Tessera), a KPI table or a grid. Charts plot the raw values and show the
// API's formatted values in tooltips; grids and KPIs show the formatted values as they are.
import { h, clear } from './dom.js';
import { gridShape, gridTable, appendGridRows, pagingOf } from './grid.js';
import { axisFormatter, elementName } from './format.js';

const kPalette = ['#2f6db5', '#e07b39', '#3a9d5d', '#c44e52', '#8172b2', '#937860', '#d17cb8',
  '#7f7f7f', '#b8a93c', '#3aa6bf'];
const kGridRowsPerPage = 100;
const kChartRowLimit = 5000;

export function drawingOf(visualizationType) {
  const type = String(visualizationType || '');
  if (type === 'bar_chart' || type === 'histogram' || type === 'waterfall') return 'bar';
  if (type === 'line_chart' || type === 'time_series') return 'line';
  if (type === 'area_chart') return 'area';
  if (type === 'pie_chart') return 'pie';
  if (type.includes('ring') || type.includes('doughnut')) return 'doughnut';
  if (type.includes('kpi') || type === 'gauge') return 'kpi';
  return 'grid';
}

function isMetricLevel(level) {
  return level.type === 'templateMetrics' || level.type === 'metrics';
}

function columnHeader(level, index) {
  const element = level.elements[index];
  if (!element) return '';
  return isMetricLevel(level) ? element.name : elementName(level, element);
}

// Categories from the first row attribute; one series per data column and combination of the
// other row attributes.
export function chartModel(result) {
  const { grid, headers, columnCount, values } = gridShape(result);
  const first = grid.rows[0];
  const categories = [];
  const categoryOf = new Map();
  const series = new Map();
  headers.rows.forEach((indexes, row) => {
    const key = first ? indexes[0] : 0;
    if (!categoryOf.has(key)) {
      const element = first ? first.elements[key] : null;
      categoryOf.set(key, categories.length);
      categories.push({
        id: element ? element.id : null,
        name: element ? elementName(first, element) : result.name || '',
        attribute: first || null,
      });
    }
    const category = categoryOf.get(key);
    const rest = grid.rows.slice(1).map((attribute, level) =>
      elementName(attribute, attribute.elements[indexes[level + 1]]));
    for (let column = 0; column < columnCount; column += 1) {
      const names = grid.columns.map((level, i) => columnHeader(level, headers.columns[i][column]));
      const label = [...rest, ...names].filter(Boolean).join(' · ');
      if (!series.has(label)) {
        const metricLevel = grid.columns.findIndex(isMetricLevel);
        const metric = metricLevel >= 0
          ? grid.columns[metricLevel].elements[headers.columns[metricLevel][column]]
          : null;
        series.set(label, { label, raw: [], formatted: [], metric });
      }
      const one = series.get(label);
      one.raw[category] = values.raw ? values.raw[row][column] : null;
      one.formatted[category] = values.formatted ? values.formatted[row][column] : '';
    }
  });
  for (const one of series.values()) {
    for (let i = 0; i < categories.length; i += 1) {
      if (one.raw[i] === undefined) one.raw[i] = null;
      if (one.formatted[i] === undefined) one.formatted[i] = '';
    }
  }
  return { categories, series: [...series.values()] };
}

function faded(color) {
  return `${color}55`;
}

function chartConfig(drawing, model, { selectedIds, isSelectable, onPick }) {
  const isRound = drawing === 'pie' || drawing === 'doughnut';
  const shown = isRound ? model.series.slice(0, 1) : model.series;
  const hasSelection = selectedIds && selectedIds.size > 0;
  const colorOfPoint = (base, index) => {
    const id = model.categories[index].id;
    return hasSelection && !selectedIds.has(id) ? faded(base) : base;
  };
  const datasets = shown.map((series, index) => {
    const color = kPalette[index % kPalette.length];
    const pointColors = model.categories.map((_, i) =>
      colorOfPoint(isRound ? kPalette[i % kPalette.length] : color, i));
    return {
      label: series.label,
      data: series.raw,
      backgroundColor: drawing === 'line' ? color : drawing === 'area' ? faded(color) : pointColors,
      borderColor: isRound ? '#ffffff' : color,
      pointBackgroundColor: pointColors,
      borderWidth: isRound ? 1 : 2,
      fill: drawing === 'area',
      tension: 0.25,
      pointRadius: drawing === 'line' || drawing === 'area' ? 2 : undefined,
    };
  });
  const format = axisFormatter(shown[0] && shown[0].metric && shown[0].metric.numberFormatting);
  return {
    type: drawing === 'area' ? 'line' : drawing,
    data: { labels: model.categories.map((category) => category.name), datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: isRound ? 'point' : 'nearest', intersect: true },
      plugins: {
        legend: { display: isRound || datasets.length > 1, position: 'bottom' },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label}: ${shown[item.datasetIndex].formatted[item.dataIndex]}`,
          },
        },
      },
      scales: isRound ? {} : { y: { beginAtZero: true, ticks: { callback: format } } },
      onClick: (event, elements) => {
        if (isSelectable && elements.length) onPick(model.categories[elements[0].index]);
      },
      onHover: (event, elements) => {
        event.native.target.style.cursor = isSelectable && elements.length ? 'pointer' : 'default';
      },
    },
  };
}

function kpiTable(result) {
  const { grid, headers, columnCount, values } = gridShape(result);
  const cells = [];
  for (let column = 0; column < columnCount; column += 1) {
    const names = grid.columns.map((level, i) => columnHeader(level, headers.columns[i][column]));
    const text = values.formatted && values.formatted[0] ? values.formatted[0][column] : '';
    cells.push(h('td', {}, h('div', { className: 'kpi-value' }, text ?? ''),
      h('div', { className: 'kpi-name' }, names.join(' '))));
  }
  return h('table', { className: 'kpi' }, h('tbody', {}, h('tr', {}, cells)));
}

export class VisualizationView {
  // `fetchPage(offset, limit)` reads the visualization's result; `onPick(category)` is called
  // when a chart element of a selectable visualization (one used as a filter) is clicked.
  constructor(definition, { fetchPage, onPick, isSelectable }) {
    this.definition = definition;
    this.fetchPage = fetchPage;
    this.onPick = onPick;
    this.isSelectable = isSelectable;
    this.selectedIds = new Set();
    this.generation = 0;
    this.chart = null;
    this.drawing = drawingOf(definition.visualizationType);
    this.status = h('span', { className: 'viz-status' });
    this.body = h('div', { className: `viz-body viz-${this.drawing}` });
    this.element = h(
      'section',
      {
        className: 'viz',
        dataset: {
          visualizationKey: definition.key,
          visualizationType: definition.visualizationType || 'grid',
          state: 'loading',
        },
      },
      h('header', {}, h('h3', {}, definition.name || definition.key), this.status),
      this.body,
    );
  }

  setSelection(ids) {
    this.selectedIds = new Set(ids);
  }

  // Reads and draws the result; a later load() supersedes an earlier one still in flight.
  async load() {
    const generation = ++this.generation;
    this.element.dataset.state = 'loading';
    this.status.textContent = 'Loading…';
    const limit = this.drawing === 'grid' ? kGridRowsPerPage : kChartRowLimit;
    let result;
    try {
      result = await this.fetchPage(0, limit);
    } catch (error) {
      if (generation === this.generation) this.showError(error);
      return;
    }
    if (generation !== this.generation) return;
    try {
      await this.draw(result);
    } catch (error) {
      this.showError(error);
      return;
    }
    this.element.dataset.state = 'ready';
    this.status.textContent = '';
    performance.mark('tessera:visualization-ready', { detail: this.definition.key });
  }

  showError(error) {
    this.destroyChart();
    clear(this.body).append(h('p', { className: 'error' }, error.message || String(error)));
    this.element.dataset.state = 'error';
    this.status.textContent = 'Error';
  }

  async draw(result) {
    this.result = result;
    this.destroyChart();
    clear(this.body);
    if (this.drawing === 'grid') return this.drawGrid(result);
    if (this.drawing === 'kpi') return this.body.append(kpiTable(result));
    const Chart = await window.TESSERA_CHART;
    const canvas = h('canvas', { role: 'img', 'aria-label': this.definition.name });
    this.body.append(h('div', { className: 'chart-box' }, canvas));
    this.model = chartModel(result);
    this.chart = new Chart(canvas, chartConfig(this.drawing, this.model, {
      selectedIds: this.selectedIds,
      isSelectable: this.isSelectable,
      onPick: (category) => this.onPick(category),
    }));
  }

  drawGrid(result) {
    const table = gridTable(result);
    const wrapper = h('div', { className: 'grid-box' }, table);
    this.body.append(wrapper);
    if (this.isSelectable) {
      table.addEventListener('click', (event) => {
        const cell = event.target.closest('th[data-element-id]');
        if (cell) this.onPick({ id: cell.dataset.elementId, name: cell.textContent, attribute: result.definition.grid.rows[cell.cellIndex] });
      });
    }
    this.addMoreRows(table, result);
  }

  addMoreRows(table, result) {
    const { total, shown } = pagingOf(result);
    if (shown >= total) return;
    const button = h('button', { type: 'button', className: 'more', dataset: { action: 'more-rows' } },
      `Show more rows (${shown} of ${total})`);
    button.addEventListener('click', async () => {
      const generation = this.generation;
      button.disabled = true;
      try {
        const next = await this.fetchPage(shown, kGridRowsPerPage);
        if (generation !== this.generation) return;
        appendGridRows(table, next);
        button.remove();
        this.addMoreRows(table, next);
      } catch (error) {
        button.disabled = false;
        button.textContent = `Could not load more rows: ${error.message}`;
      }
    });
    this.body.append(button);
  }

  destroyChart() {
    if (this.chart) this.chart.destroy();
    this.chart = null;
  }

  destroy() {
    this.generation += 1;
    this.destroyChart();
  }
}
