// @ts-check
// Renders resources/icons/icon.svg into the PNG sizes packaging uses (electron-builder takes the
// Linux icon set from the folder, `<size>x<size>.png`; macOS and Windows convert icon.png).
// Uses Chromium through playwright-core, the browser the end-to-end tests already drive:
//   node tools/render-icons.mjs [/path/to/chromium]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ICONS_DIR = fileURLToPath(new URL('../resources/icons/', import.meta.url));
const SIZES = [512, 256, 128, 64, 48, 32, 16];

const browser = await chromium.launch({
  executablePath: process.argv[2] ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const svg = readFileSync(join(ICONS_DIR, 'icon.svg'), 'utf8');
  for (const [size, name] of [[1024, 'icon.png'], ...SIZES.map((s) => [s, `${s}x${s}.png`])]) {
    const page = await browser.newPage({ viewport: { width: Number(size), height: Number(size) } });
    const sized = svg.replace('width="1024" height="1024"', `width="${size}" height="${size}"`);
    await page.setContent(`<html><body style="margin:0;background:transparent">${sized}</body></html>`);
    await page.screenshot({ path: join(ICONS_DIR, String(name)), omitBackground: true });
    await page.close();
  }
  console.log(`wrote icon.png and ${SIZES.length} sizes into ${ICONS_DIR}`);
} finally {
  await browser.close();
}
