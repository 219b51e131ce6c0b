// Runs gsync-check (web/, compiled to WebAssembly) for the book's cells
// (book/gsync-cells.js): one request in, the command's output back. Each
// check gets a fresh instance of the compiled module, so a check that ran
// out of memory or trapped leaves nothing behind for the next one.
'use strict';
let compiled = null;

function compile(url) {
    if (!compiled) {
        compiled = fetch(url).then(function (r) {
            if (!r.ok) {
                throw new Error('cannot load ' + url + ' (' + r.status + ')');
            }
            return r.arrayBuffer();
        }).then(function (bytes) {
            return WebAssembly.compile(bytes);
        });
    }
    return compiled;
}

async function check(url, request) {
    const module = await compile(url);
    const instance = await WebAssembly.instantiate(module, {
        gsync: { now_ms: function () { return performance.now(); } }
    });
    const ex = instance.exports;
    const bytes = new TextEncoder().encode(JSON.stringify(request));
    const ptr = ex.gsync_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    const len = ex.gsync_check(ptr, bytes.length);
    const out = new Uint8Array(ex.memory.buffer, ex.gsync_response(), len);
    return JSON.parse(new TextDecoder().decode(out));
}

self.onmessage = function (e) {
    const id = e.data.id;
    check(e.data.wasm, e.data.request).then(function (response) {
        self.postMessage({ id: id, response: response });
    }, function (err) {
        self.postMessage({ id: id, crash: String(err && err.message || err) });
    });
};
