// Python's bytecode for the site, made by the site's own Pyodide under Node: the interpreter
// that will import it, so the same bytecode version (a .pyc from another Python is refused).
//
//   node site/compile.mjs PYODIDE_DIR KIND:FOLDER:RUNTIME_PATH ...
//
// KIND is "beside" (foo.pyc next to foo.py: what zipimport reads, for the standard library's
// zip) or "cache" (__pycache__/foo.cpython-314.pyc: what a folder on sys.path reads, for
// wheels). RUNTIME_PATH is where the folder sits in the browser's file system, written in each
// code object for tracebacks. The .pyc are hash-based (PEP 552), valid whatever the files'
// dates, which Pyodide's unpacking does not keep: "unchecked" in the standard library's zip,
// which nothing edits; "checked" in wheels, whose files a learner could edit (and copies, as a
// mission's folder: an edited source is compiled again, never run stale). Prints one line per
// folder: all compiled, or the files that did not (compiled in the browser, as before).
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pyodideDir, ...folders] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(pyodideDir) + "/" });
const compile = pyodide.runPython(`
import compileall, io, py_compile, re, contextlib

def compile_folder(folder, beside, runtime_path):
    mode = py_compile.PycInvalidationMode
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        compileall.compile_dir(folder, quiet=1, legacy=beside, ddir=runtime_path, workers=1,
                               invalidation_mode=mode.UNCHECKED_HASH if beside else mode.CHECKED_HASH)
    failed = sorted(set(re.findall(r"\\*\\*\\* Error compiling '([^']+)'", log.getvalue())))
    return [name.removeprefix(folder + "/") for name in failed]

compile_folder
`);
let mounted = 0;
for (const spec of folders) {
  const [kind, folder, runtimePath] = spec.split(":");
  const mount = `/compile/${mounted++}`;
  pyodide.FS.mkdirTree(mount);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(folder) }, mount);
  const failed = compile(mount, kind === "beside", runtimePath).toJs();
  console.log(`${folder}: ${failed.length ? "not compiled: " + failed.join(", ") : "all compiled"}`);
}
