// CSV as RFC 4180 writes it (CRLF line ends, quoted cells with "" for a quote), with a guard against
// spreadsheet formulas: a cell starting with =, +, -, @, a tab or a carriage return is prefixed with '
// so that Excel, Sheets and Numbers show it as text instead of running it. A plain number (a signed
// amount such as -25.00) is not a formula and stays a number.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** One cell, guarded and quoted where needed. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A whole file: the header, then each row, every line ended by CRLF. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}
