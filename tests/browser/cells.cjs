// Drives the book's cells in headless Chromium for tests/browser.rs:
// serves a built book (book/build-with-checker.sh) on localhost, opens
// every chapter with cells, presses Check on each and waits for its
// answer, and writes what every cell showed as JSON.
//
//   node cells.cjs BOOK_DIR OUT_JSON [SHOTS_DIR]
//   node cells.cjs --without-checker BOOK_DIR
//
// The second form checks a book built without the wasm: every cell must
// stay highlighted code, with a note under it.
//
// SHOTS_DIR: a PNG of the primer's cell (SHOT_PAGE) before and after Check. Needs
// playwright-core (on NODE_PATH) and Chromium at $GSYNC_CHROMIUM
// (default /usr/bin/chromium); the network stays closed: the browser
// loads only from 127.0.0.1.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

const withoutChecker = process.argv[2] === '--without-checker';
const [bookDir, outJson, shotsDir] = process.argv.slice(withoutChecker ? 3 : 2);
// The cell photographed: the primer's broken lock (small, with a trace and an SVG).
const SHOT_PAGE = 'model-checking.html';
const TYPES = {
    '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
    '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.json': 'application/json',
    '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf'
};

function serve(root) {
    const server = http.createServer(function (req, res) {
        const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
        const file = path.join(root, path.normalize(url).replace(/^(\.\.[/\\])+/, ''));
        fs.readFile(file.endsWith('/') ? file + 'index.html' : file, function (err, data) {
            if (err) {
                res.writeHead(404);
                res.end();
                return;
            }
            res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
            res.end(req.method === 'HEAD' ? undefined : data);
        });
    });
    return new Promise(function (resolve) {
        server.listen(0, '127.0.0.1', function () { resolve(server); });
    });
}

// Chapters whose HTML has a cell (print.html repeats them all).
function pagesWithCells(root) {
    return fs.readdirSync(root)
        .filter(function (f) { return f.endsWith('.html') && f !== 'print.html'; })
        .filter(function (f) { return fs.readFileSync(path.join(root, f), 'utf8').includes('language-gsync cell'); })
        .sort();
}

async function checkCell(page, cell, timeoutMs) {
    await cell.locator('.gsync-cell-check').click();
    await page.waitForFunction(function (c) {
        return c.dataset.state !== 'running';
    }, await cell.elementHandle(), { timeout: timeoutMs });
    return cell.evaluate(function (c) {
        const r = c.gsyncResponse || null;
        return {
            state: c.dataset.state,
            source: c.querySelector('code').textContent,
            memory_model: c.querySelector('.gsync-cell-model').value,
            options: c.querySelector('.gsync-cell-options').value,
            shown: c.querySelector('.gsync-cell-output').textContent,
            svg_shown: !!c.querySelector('.gsync-cell-svg img'),
            exit: r ? r.exit : null,
            svg: r ? r.svg : null
        };
    });
}

// Without the checker: highlighted code, a note under each, no cell.
async function expectPlain(page, file, ready) {
    const seen = await page.evaluate(function () {
        const blocks = Array.from(document.querySelectorAll('code.language-gsync.cell'));
        return {
            blocks: blocks.length,
            highlighted: blocks.filter(function (b) { return b.classList.contains('hljs'); }).length,
            notes: document.querySelectorAll('pre + .gsync-cell-note').length,
            cells: document.querySelectorAll('.gsync-cell').length
        };
    });
    if (ready !== 'absent' || seen.blocks === 0 || seen.highlighted !== seen.blocks ||
        seen.notes !== seen.blocks || seen.cells !== 0) {
        throw new Error(file + ' without the checker: ' + ready + ' ' + JSON.stringify(seen));
    }
}

// A student's edits of the primer's cell: other options, then a typo in
// the spec (the located error, exit 2).
async function editedCells(page, base, results) {
    await page.goto(base + SHOT_PAGE);
    await page.waitForFunction(function () { return document.body.dataset.gsyncCells === 'ready'; });
    const cell = page.locator('.gsync-cell').first();
    await cell.locator('.gsync-cell-options').fill('--blocks 3 --param iters=2');
    results.push(Object.assign(await checkCell(page, cell, 120000), { page: SHOT_PAGE + ' (other options)', index: 0 }));
    await cell.locator('code').evaluate(function (code) {
        code.textContent = code.textContent.replace('lock = 1;', 'lock = ;');
    });
    results.push(Object.assign(await checkCell(page, cell, 120000), { page: SHOT_PAGE + ' (a typo)', index: 0 }));
}

async function main() {
    const server = await serve(bookDir);
    const base = 'http://127.0.0.1:' + server.address().port + '/';
    const userDir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'gsync-chromium-'));
    // A fresh profile (--user-data-dir) each run.
    const context = await chromium.launchPersistentContext(userDir, {
        executablePath: process.env.GSYNC_CHROMIUM || '/usr/bin/chromium',
        headless: true,
        viewport: { width: 1100, height: 900 },
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync']
    });
    const results = [];
    try {
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', function (e) { errors.push(String(e)); });
        for (const file of pagesWithCells(bookDir)) {
            await page.goto(base + file);
            await page.waitForFunction(function () { return document.body.dataset.gsyncCells; });
            const ready = await page.evaluate(function () { return document.body.dataset.gsyncCells; });
            if (withoutChecker) {
                await expectPlain(page, file, ready);
                continue;
            }
            const cells = page.locator('.gsync-cell');
            const n = await cells.count();
            if (ready !== 'ready' || n === 0) {
                throw new Error(file + ': the cells did not start (' + ready + ', ' + n + ' cells)');
            }
            for (let i = 0; i < n; i++) {
                const cell = cells.nth(i);
                const shoot = shotsDir && file === SHOT_PAGE && i === 0;
                if (shoot) {
                    fs.mkdirSync(shotsDir, { recursive: true });
                    // The sticky menu bar would cover the cell's top.
                    await page.addStyleTag({ content: '#mdbook-menu-bar, #menu-bar { position: static !important; }' });
                    await cell.scrollIntoViewIfNeeded();
                    await cell.screenshot({ path: path.join(shotsDir, 'cell-before.png') });
                }
                const r = await checkCell(page, cell, 120000);
                if (shoot) {
                    await page.waitForTimeout(200); // the SVG image decodes
                    await cell.screenshot({ path: path.join(shotsDir, 'cell-after.png') });
                }
                r.page = file;
                r.index = i;
                results.push(r);
            }
        }
        if (!withoutChecker) {
            await editedCells(page, base, results);
        }
        if (errors.length) {
            throw new Error('errors on the page:\n' + errors.join('\n'));
        }
    } finally {
        await context.close();
        server.close();
        fs.rmSync(userDir, { recursive: true, force: true });
    }
    if (!withoutChecker) {
        fs.writeFileSync(outJson, JSON.stringify(results, null, 1));
    }
}

main().catch(function (e) {
    console.error(String(e && e.stack || e));
    process.exit(1);
});
