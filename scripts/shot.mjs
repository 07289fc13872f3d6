// Looks at a page: a screenshot of the release build at one size and colour
// scheme, for a developer to open (`node scripts/shot.mjs 'query' out.png
// 1280 800 dark [testid-to-wait-for] [click-testid...]`). With NO_WASM=1 the
// simulator never arrives: the page as it shows before (its first screen).
import { serve, launch, DIST } from '../tests/e2e/harness.mjs';

const [query = '', out = 'shot.png', width = '1280', height = '800', scheme = 'light', wait = 'race-play', ...clicks] = process.argv.slice(2);
const server = await serve({ '/': DIST });
const browser = await launch();
const page = await browser.newPage({ viewport: { width: Number(width), height: Number(height) }, colorScheme: scheme });
if (process.env.NO_WASM) await page.route('**/*.wasm*', (route) => route.abort());
await page.goto(`${server.url}?${query}`);
await page.getByTestId(wait).first().waitFor({ timeout: 60_000 });
for (const testid of clicks) {
  await page.getByTestId(testid).first().click();
  await page.waitForTimeout(300);
}
await page.waitForTimeout(500);
await page.screenshot({ path: out, fullPage: false });
await browser.close();
await server.close();
