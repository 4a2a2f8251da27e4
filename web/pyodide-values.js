// How Pyodide's results and errors reach JS callers; shared by web/worker.js and the browser tests'
// page-mode harness (tests/browser/harness.html), which run Python the same way.

// An error's text: a PythonError's message is the formatted Python traceback; a JS error gets its name
// and stack.
export function errorText(e) {
  if (e == null) return String(e);
  return e.message ? (e.type ? e.message : `${e.name || "Error"}: ${e.message}\n${e.stack || ""}`) : String(e);
}

// A runPythonAsync result as a structured-clonable value (a proxy is converted, then destroyed).
export function toPlain(value) {
  if (value && typeof value === "object" && typeof value.toJs === "function") {
    try {
      return value.toJs({dict_converter: Object.fromEntries, create_pyproxies: false});
    } finally {
      value.destroy();
    }
  }
  return value;
}
