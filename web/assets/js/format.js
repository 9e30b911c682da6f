// How values of a v2 grid result read: element names from their display forms, and axis ticks in
// the style of a metric's number format. Cells and tooltips show the API's formatted values as
// they are; only axis ticks, which the API cannot format, are formatted here.

// An element's name: its DESC form values when the attribute has a DESC form, else every form
// value, joined by a space.
export function elementName(attribute, element) {
  if (!element) return '';
  if (element.name !== undefined && !element.formValues) return element.name;
  const values = element.formValues || [];
  const forms = attribute.forms || [];
  const described = forms
    .map((form, index) => (form.baseFormCategory === 'DESC' ? values[index] : undefined))
    .filter((value) => value !== undefined);
  return (described.length ? described : values).join(' ');
}

// A tick formatter for a metric's numberFormatting: percent, currency or plain, compact when large.
export function axisFormatter(numberFormatting) {
  const format = (numberFormatting && numberFormatting.formatString) || '';
  if (format.includes('%')) {
    const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
    return (value) => percent.format(value);
  }
  const currency = format.includes('$') ? '$' : '';
  const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
  return (value) => {
    const text = compact.format(Math.abs(value));
    return `${value < 0 ? '-' : ''}${currency}${text}`;
  };
}
