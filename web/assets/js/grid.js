// A v2 grid result (report, cube or visualization) read as a table: row header cells from the row
// attributes' elements, column header levels from `columns` (attributes and the metrics), and the
// cells as the API formatted them. Element indexes are local to the page the result holds.
import { h } from './dom.js';
import { elementName } from './format.js';

function headerName(level, element) {
  if (!element) return '';
  return level.type === 'templateMetrics' || level.type === 'metrics'
    ? element.name
    : elementName(level, element);
}

export function gridShape(result) {
  const grid = result.definition.grid;
  const headers = result.data.headers;
  const columnCount = headers.columns.length ? headers.columns[0].length : 0;
  return { grid, headers, columnCount, values: result.data.metricValues || {} };
}

function headerRows(shape) {
  const { grid, headers, columnCount } = shape;
  const attributeNames = grid.rows.map((attribute) => h('th', { scope: 'col' }, attribute.name));
  if (!grid.columns.length) return [h('tr', {}, attributeNames)];
  return grid.columns.map((level, index) => {
    const isLast = index === grid.columns.length - 1;
    const lead = isLast
      ? attributeNames
      : grid.rows.length
        ? [h('th', { colspan: grid.rows.length })]
        : [];
    const cells = [];
    for (let column = 0; column < columnCount; column += 1) {
      const element = level.elements[headers.columns[index][column]];
      cells.push(h('th', { scope: 'col', className: 'num' }, headerName(level, element)));
    }
    return h('tr', {}, lead, cells);
  });
}

function bodyRows(shape) {
  const { grid, headers, columnCount, values } = shape;
  const formatted = values.formatted || [];
  return headers.rows.map((indexes, row) => {
    const attributeCells = grid.rows.map((attribute, level) => {
      const element = attribute.elements[indexes[level]];
      return h(
        'th',
        { scope: 'row', dataset: element && element.id ? { elementId: element.id } : undefined },
        headerName(attribute, element),
      );
    });
    const cells = [];
    for (let column = 0; column < columnCount; column += 1) {
      const text = formatted[row] ? formatted[row][column] : '';
      cells.push(h('td', { className: 'num' }, text ?? ''));
    }
    return h('tr', {}, attributeCells, cells);
  });
}

// A <table> of the result's rows.
export function gridTable(result) {
  const shape = gridShape(result);
  return h(
    'table',
    { className: 'grid' },
    h('thead', {}, headerRows(shape)),
    h('tbody', {}, bodyRows(shape)),
  );
}

// Appends the rows of a later page of the same result to a table made by gridTable().
export function appendGridRows(table, result) {
  table.tBodies[0].append(...bodyRows(gridShape(result)));
}

// Paging of a result: how many rows are shown so far and how many there are.
export function pagingOf(result) {
  const paging = result.data.paging || {};
  return {
    total: paging.total ?? 0,
    shown: (paging.offset ?? 0) + (paging.current ?? 0),
  };
}
