// The checker in the browser: every ```gsync,cell block becomes an
// editable cell with a memory-model switch, an options field and a Check
// button; the check runs gsync-check compiled to WebAssembly (web/) in a
// worker (gsync/worker.js), and its report, trace and counterexample SVG
// appear under the cell. Without gsync/gsync_web.wasm in the built book
// (plain `mdbook build book`) or when the page is opened from a file, a
// cell stays highlighted code with a note saying how to get the checker.
//
// Attributes after `gsync` in the fence: `cell`, then optionally `sc` or
// `ptx` (the switch's first position, default ptx) and
// `options="--blocks 3 ..."` (the options field's first value).
/* global path_to_root */
(function () {
    'use strict';
    const root = typeof path_to_root === 'undefined' ? '' : path_to_root;
    const wasmUrl = root + 'gsync/gsync_web.wasm';
    const workerUrl = root + 'gsync/worker.js';
    const blocks = Array.from(document.querySelectorAll('code.language-gsync.cell'));
    if (blocks.length === 0) {
        return;
    }

    function el(tag, cls, text) {
        const e = document.createElement(tag);
        if (cls) {
            e.className = cls;
        }
        if (text !== undefined) {
            e.textContent = text;
        }
        return e;
    }

    function degrade(why) {
        blocks.forEach(function (code) {
            const note = el('p', 'gsync-cell-note',
                'To run this spec here, build the book with the checker ' +
                '(Getting started: "The checker in the browser"). ' + why);
            code.closest('pre').after(note);
        });
        document.body.dataset.gsyncCells = 'absent';
    }

    // One worker runs the checks, one at a time; Stop ends it and the next
    // check starts a fresh one.
    let worker = null;
    let pending = null;
    let nextId = 1;

    function startWorker() {
        worker = new Worker(workerUrl);
        worker.onmessage = function (e) {
            if (pending && pending.id === e.data.id) {
                const done = pending.done;
                pending = null;
                done(e.data);
            }
        };
        worker.onerror = function (e) {
            if (pending) {
                const done = pending.done;
                pending = null;
                done({ crash: e.message || 'the checker could not start' });
            }
        };
    }

    function runCheck(request, done) {
        if (!worker) {
            startWorker();
        }
        const id = nextId++;
        pending = { id: id, done: done };
        worker.postMessage({ id: id, wasm: new URL(wasmUrl, document.baseURI).href, request: request });
    }

    function stop() {
        if (worker) {
            worker.terminate();
            worker = null;
        }
        if (pending) {
            const done = pending.done;
            pending = null;
            done({ stopped: true });
        }
    }

    function optionAttr(code) {
        const m = /options="([^"]*)"/.exec(code.getAttribute('class') || '');
        return m ? m[1] : '';
    }

    function makeCell(code, index) {
        const pre = code.closest('pre');
        const cell = el('div', 'gsync-cell');
        cell.dataset.index = String(index);
        pre.before(cell);
        cell.appendChild(pre);
        code.setAttribute('contenteditable', 'plaintext-only');
        code.setAttribute('spellcheck', 'false');
        code.setAttribute('aria-label', 'spec source (editable)');

        const bar = el('div', 'gsync-cell-bar');
        const model = el('select', 'gsync-cell-model');
        ['sc', 'ptx'].forEach(function (m) {
            const o = el('option', null, m);
            o.value = m;
            model.appendChild(o);
        });
        model.value = code.classList.contains('sc') ? 'sc' : 'ptx';
        model.title = '--memory-model';
        const options = el('input', 'gsync-cell-options');
        options.type = 'text';
        options.value = optionAttr(code);
        options.placeholder = 'options, e.g. --blocks 3 --param iters=2';
        options.title = 'options as on the command line';
        const button = el('button', 'gsync-cell-check', 'Check');
        button.type = 'button';
        const status = el('span', 'gsync-cell-status');
        const modelLabel = el('label', null, 'memory model ');
        modelLabel.appendChild(model);
        bar.append(button, modelLabel, options, status);
        cell.appendChild(bar);
        const output = el('pre', 'gsync-cell-output');
        output.hidden = true;
        const figure = el('div', 'gsync-cell-svg');
        figure.hidden = true;
        cell.append(output, figure);

        button.addEventListener('click', function () {
            if (cell.dataset.state === 'running') {
                stop();
                return;
            }
            const request = {
                source: code.textContent,
                file: 'cell.gsync',
                memory_model: model.value,
                options: options.value
            };
            cell.dataset.state = 'running';
            button.textContent = 'Stop';
            status.textContent = 'checking…';
            const started = performance.now();
            runCheck(request, function (reply) {
                show(cell, reply, (performance.now() - started) / 1000);
                button.textContent = 'Check';
            });
        });
    }

    function show(cell, reply, seconds) {
        const output = cell.querySelector('.gsync-cell-output');
        const figure = cell.querySelector('.gsync-cell-svg');
        const status = cell.querySelector('.gsync-cell-status');
        figure.replaceChildren();
        figure.hidden = true;
        output.hidden = false;
        const r = reply.response;
        if (!r) {
            output.textContent = reply.stopped ? 'stopped' : 'the checker failed: ' + reply.crash;
            status.textContent = '';
            cell.dataset.state = reply.stopped ? 'stopped' : 'crashed';
            return;
        }
        output.textContent = r.stdout + r.stderr;
        const verdicts = { 0: 'verified', 1: 'violated', 2: 'error', 3: 'inconclusive' };
        status.textContent = (verdicts[r.exit] || 'exit ' + r.exit) + ' in ' + seconds.toFixed(2) + ' s';
        cell.dataset.exit = String(r.exit);
        if (r.svg) {
            const img = el('img');
            img.alt = 'the counterexample as a sequence diagram';
            img.src = URL.createObjectURL(new Blob([r.svg], { type: 'image/svg+xml' }));
            figure.appendChild(img);
            figure.hidden = false;
        }
        // For tests/browser.rs: what the checker answered, unchanged.
        cell.gsyncResponse = r;
        cell.dataset.state = 'done';
    }

    if (location.protocol === 'file:') {
        degrade('Opened from a file, the page cannot load it: serve the built book over HTTP.');
        return;
    }
    fetch(wasmUrl, { method: 'HEAD' }).then(function (r) {
        if (!r.ok) {
            throw new Error('not built');
        }
        blocks.forEach(makeCell);
        document.body.dataset.gsyncCells = 'ready';
    }).catch(function () {
        degrade('This build of the book has no gsync/gsync_web.wasm.');
    });
})();
