"""The kernel's worker starts with the page, not once JupyterLab is up. Used by site/build.py.

JupyterLab takes about 2.5 s of a reload (2 cores) before it asks for the notebook's kernel;
only then did pyodide-kernel create its worker, which took as long again to load Pyodide and
the packages of the lock. The lab page opens exactly one notebook (site/one-notebook.js),
whose kernel is this Python: so site/early-kernel.js, at the top of the page, creates that
worker at once, and the worker loads Pyodide and the packages as soon as it runs, with the
options the site's configuration gives the kernel (`startup_options`, written in at build
time). That early load unpacks only the packages that read their own files; the others come
from one zip on sys.path (site/bundle.py, its early lock); it then imports what `initialize`
would import next (`IMPORTS`), still while JupyterLab loads. When JupyterLab then starts the
kernel, pyodide-kernel takes that worker instead of making one (`TAKE_WORKER`), and the
worker's `initialize` uses what it has loaded if the options it is given are the site's
(`EARLY_RUNTIME`); else it waits for that load to end and loads again with the given ones,
the whole lock, wheel by wheel (slower, never wrong). `js.harnessEarlyStart` in the kernel
says which: "used" or "refused".

Only the comlink worker (a page without cross-origin isolation, as every static host
serves it) is started early: the other one (coincident) is left as pyodide-kernel makes it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kernel_start import WORKERS

KERNEL = "@jupyterlite/pyodide-kernel-extension:kernel"
# In the worker: the runtime load that `initialize` does first, through the early one.
RUNTIME = "await this.initRuntime(e),await this.initFilesystem(e)"
EARLY_RUNTIME = ("await(globalThis.__harnessEarly?.(this,e)??this.initRuntime(e)),"
                 "await this.initFilesystem(e)")
# The worker's last lines: its kernel object, exposed to the page.
EXPOSED = re.compile(r"(\w+)=new (\w+);(\w+)\(\1\);export\{\2 as PyodideComlinkKernel\};\s*$")
# What pyodide-kernel's `initialize` imports once it has the runtime (initPackageManager,
# initKernel): imported by the early load too, while JupyterLab is still loading, so that
# `initialize` finds them done (none of them looks at the drive, mounted after).
IMPORTS = "import micropip, piplite.piplite, pyodide_kernel"
# Run in the worker, once exposed: the early load, and what `initialize` asks of it. `opts`
# are the options the site's configuration gives the kernel (what `initialize` compares);
# the load itself takes the early lock and the kept packages (site/bundle.py), then writes the
# zip of the others, fetched meanwhile, appends it to sys.path, and imports IMPORTS.
EARLY = """;(()=>{const root=new URL("../../../../",self.location.href).href,given=__OPTIONS__,
bundle=__BUNDLE__,at=u=>new URL(u,root).href,
opts={pyodideUrl:at(given.pyodideUrl),loadPyodideOptions:{}};
opts.indexUrl=opts.pyodideUrl.slice(0,opts.pyodideUrl.lastIndexOf("/")+1);
for(const[k,v]of Object.entries(given.loadPyodideOptions))opts.loadPyodideOptions[k]=
k.endsWith("URL")&&typeof v=="string"?at(v):v;
const key=o=>JSON.stringify(
[o.pyodideUrl,o.indexUrl,Object.entries(o.loadPyodideOptions||{}).sort()]),
zip=fetch(at(bundle.zip)).then(r=>r.ok?r.arrayBuffer():Promise.reject(Error(r.status+" "+r.url))),
early={...opts,loadPyodideOptions:{...opts.loadPyodideOptions,lockFileURL:at(bundle.lock),
packages:bundle.packages}},
loaded=__KERNEL__.initRuntime(early).then(()=>zip).then(data=>{const py=__KERNEL__._pyodide;
py.FS.writeFile(bundle.path,new Uint8Array(data));
py.runPython("import sys;sys.path.append("+JSON.stringify(bundle.path)+")");
py.runPython(__IMPORTS__)}).then(
()=>!0,(err)=>(console.warn("early kernel:",err),!1));
zip.catch(()=>{});
globalThis.__harnessEarly=(kernel,e)=>{delete globalThis.__harnessEarly;
const same=kernel===__KERNEL__&&key(e)===key(opts);
return loaded.then(ok=>{globalThis.harnessEarlyStart=ok&&same?"used":"refused";
return ok&&same?!0:kernel.initRuntime(e)})}})();"""
# In pyodide-kernel's page code: the worker it makes for a kernel, unless the page made one.
MAKE_WORKER = 'initWorker(e){let t=e=>new Worker(e,{type:"module"});return crossOriginIsolated?'
TAKE_WORKER = ('initWorker(e){let t=e=>new Worker(e,{type:"module"});'
               'const w=globalThis.__harnessKernelWorker;globalThis.__harnessKernelWorker=null;'
               'if(w&&!crossOriginIsolated)return w;if(w)w.terminate();'
               'return crossOriginIsolated?')


def startup_options(out: Path) -> dict[str, object]:
    """The kernel's Pyodide and packages as the site's jupyter-lite.json gives them (its URLs
    relative to the site's root)."""
    config = json.loads((out / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = config["jupyter-config-data"]["litePluginSettings"][KERNEL]
    return {"pyodideUrl": kernel["pyodideUrl"],
            "loadPyodideOptions": kernel.get("loadPyodideOptions", {})}


def start_early(out: Path, bundle: dict[str, object]) -> str:
    """The comlink worker loads at once (with `bundle`'s lock, packages and zip: site/bundle.py),
    and pyodide-kernel takes the page's; the worker's path from the site's root. Stops the build
    if pyodide-kernel is no longer as expected."""
    static = out / WORKERS
    workers = sorted(static.glob("comlink.worker.*.js"))
    pages = [p for p in static.glob("*.js") if MAKE_WORKER in p.read_text(encoding="utf-8")]
    if len(workers) != 1 or len(pages) != 1:
        raise SystemExit(f"site/early_kernel.py : pyodide-kernel a changé ({len(workers)} "
                         f"worker comlink, {len(pages)} création de worker)")
    worker, options = workers[0], json.dumps(startup_options(out))
    source = worker.read_text(encoding="utf-8").replace(RUNTIME, EARLY_RUNTIME)
    found = EXPOSED.search(source)
    if source.count(EARLY_RUNTIME) != 1 or not found:
        raise SystemExit(f"site/early_kernel.py : {worker.name} inattendu "
                         "(pyodide-kernel a changé)")
    early = (EARLY.replace("__OPTIONS__", options).replace("__BUNDLE__", json.dumps(bundle))
             .replace("__IMPORTS__", json.dumps(IMPORTS)).replace("__KERNEL__", found[1]))
    worker.write_text(source[:found.start()] + found[0].rstrip() + early.replace("\n", "") + "\n",
                      encoding="utf-8")
    page = pages[0]
    page.write_text(page.read_text(encoding="utf-8").replace(MAKE_WORKER, TAKE_WORKER),
                    encoding="utf-8")
    return worker.relative_to(out).as_posix()
