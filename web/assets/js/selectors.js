// Selectors of a dashboard: chapter filters (the filter panel) and in-canvas selectors. Each is
// an element with data-selector-key; every element or object it offers carries data-element-id.
// A change is sent with PUT .../filters through `context.apply(entry)` (one entry in the API's
// new format), which also re-renders the selector's targets; a refused change shows the API's
// message and keeps the previous state.
import { h, clear, debounce } from './dom.js';

const kElementsPerPage = 6;

const kAttributeOperators = [
  ['Equals', '='], ['NotEqual', '≠'], ['Greater', '>'], ['GreaterEqual', '≥'], ['Less', '<'],
  ['LessEqual', '≤'], ['Between', 'between'], ['NotBetween', 'not between'],
  ['Contains', 'contains'], ['BeginsWith', 'begins with'], ['EndsWith', 'ends with'],
  ['Like', 'like'],
];
const kMetricOperators = [
  ['Greater', '>'], ['GreaterEqual', '≥'], ['Less', '<'], ['LessEqual', '≤'], ['Equals', '='],
  ['NotEqual', '≠'], ['Between', 'between'], ['NotBetween', 'not between'],
  ['Rank.Top', 'highest (rank)'], ['Rank.Bottom', 'lowest (rank)'],
  ['Percent.Top', 'highest (percent)'], ['Percent.Bottom', 'lowest (percent)'],
];

function isRange(operator) {
  return operator.endsWith('Between');
}

function frame(selector, ...content) {
  const summary = h('div', { className: 'selector-summary' }, selector.summary || '');
  const message = h('div', { className: 'selector-message', role: 'alert' });
  const element = h(
    'div',
    {
      className: 'selector',
      dataset: { selectorKey: selector.key, selectorType: selector.selectorType },
    },
    h('div', { className: 'selector-name' }, selector.name || selector.key),
    ...content,
    summary,
    message,
  );
  return { element, summary, message };
}

// Runs `change` (which applies a filter), reporting failure in the selector's message line.
async function applying(parts, change) {
  parts.message.textContent = '';
  parts.element.classList.add('busy');
  try {
    await change();
    return true;
  } catch (error) {
    if (error && error.name !== 'AbortError') parts.message.textContent = error.message;
    return false;
  } finally {
    parts.element.classList.remove('busy');
  }
}

function elementList(selector, context) {
  const selection = selector.currentSelection || {};
  const isMulti = selector.multiSelectionAllowed !== false;
  const chosen = new Map((selection.elements || []).map((element) => [element.id, element.name]));
  let isExcluded = selection.selectionStatus === 'excluded';
  let offset = 0;
  let pattern = '';
  const list = h('ul', { className: 'element-list' });
  const more = h('button', { type: 'button', className: 'more', dataset: { action: 'more-elements' }, hidden: true });
  const search = h('input', { type: 'search', name: 'elementSearch', placeholder: 'Search', 'aria-label': `Search ${selector.name}` });
  const allInput = h('input', { type: isMulti ? 'checkbox' : 'radio', name: `all-${selector.key}` });
  const allOption = selector.hasAllOption
    ? h('label', { className: 'element all-option', dataset: { allOption: '' } }, allInput, '(All)')
    : null;
  const excludeInput = h('input', { type: 'checkbox', name: 'exclude' });
  const excludeToggle = isMulti ? h('label', { className: 'exclude' }, excludeInput, 'Exclude selected') : null;
  const current = h('span', { className: 'current' });
  const body = [search, allOption, list, more, excludeToggle];
  const parts = selector.displayStyle === 'drop_down'
    ? frame(selector, h('details', { className: 'drop-down' }, h('summary', {}, current), ...body))
    : frame(selector, ...body);

  const describe = () => {
    current.textContent = chosen.size ? [...chosen.values()].join(', ') : '(All)';
    allInput.checked = chosen.size === 0;
    excludeInput.checked = isExcluded;
    for (const input of list.querySelectorAll('input')) input.checked = chosen.has(input.value);
  };

  const entry = () => {
    if (chosen.size === 0) {
      return { key: selector.key, currentSelection: selector.hasAllOption
        ? { selectionStatus: 'unfiltered', allSelected: true }
        : { selectionStatus: 'unfiltered' } };
    }
    return {
      key: selector.key,
      currentSelection: {
        selectionStatus: isExcluded ? 'excluded' : 'included',
        elements: [...chosen].map(([id, name]) => ({ id, name })),
      },
    };
  };

  const send = async (undo) => {
    describe();
    const ok = await applying(parts, () => context.apply(entry()));
    if (!ok) {
      undo();
      describe();
    }
  };

  const toggle = (id, name, isOn) => {
    const before = new Map(chosen);
    if (!isMulti) chosen.clear();
    if (isOn) chosen.set(id, name);
    else chosen.delete(id);
    send(() => {
      chosen.clear();
      for (const [k, v] of before) chosen.set(k, v);
    });
  };

  // Only the answer to the latest read is shown: a search typed on while an earlier one is still
  // on its way, or More clicked twice, never shows an older answer after a newer one. More while
  // a new search is on its way reads that search's first page.
  let latestRead = 0;
  let isResetPending = false;
  const showPage = async (reset) => {
    const isReset = reset || isResetPending;
    isResetPending = isReset;
    const read = ++latestRead;
    const from = isReset ? 0 : offset;
    let page;
    try {
      page = await context.elements(selector.key, pattern, from, kElementsPerPage);
    } catch (error) {
      if (read !== latestRead) return;
      isResetPending = false;
      parts.message.textContent = error.message;
      return;
    }
    if (read !== latestRead) return;
    isResetPending = false;
    offset = from;
    if (isReset) clear(list);
    for (const element of page.items) {
      const input = h('input', { type: isMulti ? 'checkbox' : 'radio', name: `element-${selector.key}`, value: element.id });
      input.checked = chosen.has(element.id);
      input.addEventListener('change', () => toggle(element.id, element.name, input.checked));
      list.append(h('li', {}, h('label', { className: 'element', dataset: { elementId: element.id } }, input, element.name)));
    }
    offset += page.items.length;
    more.hidden = offset >= page.total;
    more.textContent = `More (${offset} of ${page.total})`;
  };

  search.addEventListener('input', debounce(() => {
    pattern = search.value.trim();
    showPage(true);
  }, 250));
  more.addEventListener('click', () => showPage(false));
  allInput.addEventListener('change', () => {
    if (!allInput.checked) return describe();
    const before = new Map(chosen);
    chosen.clear();
    send(() => before.forEach((v, k) => chosen.set(k, v)));
  });
  excludeInput.addEventListener('change', () => {
    isExcluded = excludeInput.checked;
    if (chosen.size === 0) return;
    send(() => {
      isExcluded = !isExcluded;
    });
  });
  describe();
  showPage(true);
  return parts;
}

function constantsOf(expression) {
  return (expression && expression.operands ? expression.operands.slice(1) : [])
    .flatMap((operand) => (operand.values ? operand.values : [operand.value]))
    .filter((value) => value !== undefined);
}

// Attribute and metric qualification: an operator, one or two values, Apply and Clear.
function qualification(selector, context, operators, firstOperand, dataTypeOf) {
  const expression = selector.currentSelection && selector.currentSelection.expression;
  const operator = h('select', { name: 'operator', 'aria-label': 'Operator' },
    operators.map(([value, label]) => h('option', { value }, label)));
  operator.value = expression ? expression.operator : operators[0][0];
  const [first = '', second = ''] = constantsOf(expression);
  const value = h('input', { name: 'value', value: first, 'aria-label': 'Value', size: 8 });
  const value2 = h('input', { name: 'value2', value: second, 'aria-label': 'Second value', size: 8 });
  const apply = h('button', { type: 'submit', dataset: { action: 'apply' } }, 'Apply');
  const reset = h('button', { type: 'button', dataset: { action: 'clear' } }, 'Clear');
  const form = h('form', { className: 'qualification' }, operator, value, value2, apply, reset);
  const parts = frame(selector, form);
  const showRange = () => {
    value2.hidden = !isRange(operator.value);
  };
  operator.addEventListener('change', showRange);
  showRange();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = isRange(operator.value) ? [value.value, value2.value] : [value.value];
    const operand = firstOperand(expression);
    const dataType = dataTypeOf(expression);
    applying(parts, () => context.apply({
      key: selector.key,
      currentSelection: {
        selectionStatus: 'included',
        expression: {
          operator: operator.value,
          operands: [operand, ...values.map((text) => ({ type: 'constant', dataType, value: text.trim() }))],
        },
      },
    }));
  });
  reset.addEventListener('click', () => {
    applying(parts, async () => {
      await context.apply({ key: selector.key, currentSelection: { selectionStatus: 'unfiltered' } });
      value.value = '';
      value2.value = '';
    });
  });
  return parts;
}

function attributeQualification(selector, context) {
  const firstOperand = (expression) => {
    if (expression && expression.operands && expression.operands[0]) return expression.operands[0];
    const forms = context.formsOf(selector.source.id);
    const form = forms.find((f) => f.baseFormCategory === 'DESC') || forms[0] || { name: 'ID' };
    return { type: 'form', attribute: { id: selector.source.id, name: selector.source.name },
      form: { id: form.id, name: form.name } };
  };
  const dataTypeOf = (expression) => {
    const constant = expression && expression.operands && expression.operands[1];
    if (constant && constant.dataType) return constant.dataType;
    const operand = firstOperand(expression);
    const form = context.formsOf(selector.source.id).find((f) => f.name === operand.form.name);
    const type = form ? String(form.dataType).toLowerCase() : '';
    if (/int|double|float|numeric|decimal|real/.test(type)) return 'Real';
    if (type.includes('date')) return 'Date';
    return 'Char';
  };
  return qualification(selector, context, kAttributeOperators, firstOperand, dataTypeOf);
}

function metricQualification(selector, context) {
  const firstOperand = () => ({ type: 'metric', id: selector.source.id, name: selector.source.name });
  return qualification(selector, context, kMetricOperators, firstOperand, () => 'Real');
}

function objectReplacement(selector, context) {
  const isMulti = Boolean(selector.multiSelectionAllowed);
  const chosen = new Set(((selector.currentSelection || {}).objectItems || []).map((item) => item.id));
  const items = selector.availableObjectItems || [];
  const inputs = [];
  const list = h('ul', { className: `object-list ${selector.displayStyle || ''}` }, items.map((item) => {
    const input = h('input', { type: isMulti ? 'checkbox' : 'radio', name: `object-${selector.key}`, value: item.id });
    input.checked = chosen.has(item.id);
    inputs.push(input);
    return h('li', {}, h('label', { className: 'element', dataset: { elementId: item.id } }, input, item.name));
  }));
  const parts = frame(selector, list);
  list.addEventListener('change', async () => {
    const picked = inputs.filter((input) => input.checked).map((input) => input.value);
    const ok = await applying(parts, () => context.apply({
      key: selector.key,
      currentSelection: {
        selectionStatus: 'included',
        objectItems: items.filter((item) => picked.includes(item.id)).map(({ id, name }) => ({ id, name })),
      },
    }));
    if (ok) {
      chosen.clear();
      picked.forEach((id) => chosen.add(id));
    } else {
      inputs.forEach((input) => { input.checked = chosen.has(input.value); });
    }
  });
  return parts;
}

function valueParameter(selector, context) {
  const values = (selector.currentSelection || {}).values || [];
  const isNumber = /real|int|double|decimal|numeric/i.test(selector.dataType || '');
  const input = h('input', {
    name: 'value', value: values[0] ?? '', type: isNumber ? 'number' : 'text', step: isNumber ? 'any' : undefined,
    min: selector.minValue, max: selector.maxValue, 'aria-label': selector.name,
  });
  const apply = h('button', { type: 'submit', dataset: { action: 'apply' } }, 'Apply');
  const reset = h('button', { type: 'button', dataset: { action: 'clear' } }, 'Default');
  const form = h('form', { className: 'parameter' }, input, apply, reset);
  const parts = frame(selector, form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    applying(parts, () => context.apply({
      key: selector.key,
      currentSelection: { selectionStatus: 'included', values: [input.value.trim()] },
    }));
  });
  reset.addEventListener('click', () => applying(parts, async () => {
    await context.apply({ key: selector.key });
    const fresh = await context.current(selector.key);
    input.value = fresh && fresh.currentSelection && fresh.currentSelection.values
      ? fresh.currentSelection.values[0] ?? '' : '';
  }));
  return parts;
}

// The element of one selector of the definition, or null for a type this app does not draw.
export function renderSelector(selector, context) {
  switch (selector.selectorType) {
    case 'attribute_element_list': return elementList(selector, context);
    case 'attribute_qualification': return attributeQualification(selector, context);
    case 'metric_qualification': return metricQualification(selector, context);
    case 'object_replacement': return objectReplacement(selector, context);
    case 'value_parameter': return valueParameter(selector, context);
    default: return null;
  }
}

// Updates a rendered selector's summary line from a fresh definition of it.
export function showSummary(parts, selector) {
  if (parts && selector) parts.summary.textContent = selector.summary || '';
}
