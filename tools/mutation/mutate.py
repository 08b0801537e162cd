#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of the host test tiers (`make mutation-score`).

For each directory of tools/mutation/targets.txt, every small semantic edit
of its C sources is listed (a flipped comparison, a dropped check, a
constant off by one, swapped operands or operator, a removed statement);
a seeded sample of them is applied one at a time to a private copy of the
tree, which is rebuilt and tested with the directory's tier under a
timeout. A mutant is killed when the build succeeds and the tier fails (or
times out), survives when the tier passes, and does not count when it does
not build. tools/mutation/equivalent.txt lists, with a reason, the mutants
that cannot change behaviour; they are left out of the kill rate. The
working tree is never modified. Python 3 standard library only.

  mutate.py [--source DIR] [--seed N] [--per-dir N] [--only NAME]
            [--key KEY]... [--list] [--report FILE] [--keep]
"""

import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- C text


def code_mask(text):
    """A list of booleans: True where text[i] is code (not a comment, a
    string or character literal, or an #include / #if line)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start:
            j = i
            while j < n and text[j] in ' \t':
                j += 1
            if j < n and text[j] == '#':
                directive = re.match(r'#\s*(\w+)', text[j:])
                if directive and directive.group(1) != 'define':
                    end = text.find('\n', j)
                    end = n if end < 0 else end
                    for k in range(i, end):
                        mask[k] = False
                    i = end
                    continue
        line_start = False
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                mask[k] = False
            i = end
            continue
        if text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            for k in range(i, end):
                mask[k] = False
            i = end
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            for k in range(i, min(j + 1, n)):
                mask[k] = False
            i = j + 1
            continue
        if c == '\n':
            line_start = True
        i += 1
    return mask


def line_of(text, pos):
    return text.count('\n', 0, pos) + 1


def line_text(text, pos):
    start = text.rfind('\n', 0, pos) + 1
    end = text.find('\n', pos)
    return text[start:end if end >= 0 else len(text)]


def matching_paren(text, mask, open_pos):
    depth = 0
    for i in range(open_pos, len(text)):
        if not mask[i]:
            continue
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                return i
    return -1


# ---------------------------------------------------------------- operators

RELATIONAL = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=',
              '!=': '=='}
# Operand: an identifier with member accesses or indexes, or a number.
OPERAND = r'(?:[A-Za-z_]\w*(?:(?:->|\.)\w+|\[\w+\])*|\d\w*)'
# A check whose branch reports an allocation failure: the host tests do
# not make malloc fail (the kernel's failslab tier does that for the
# driver), so dropping it would only ever survive. Such checks are listed
# as skipped, not mutated.
ALLOCATION_FAILURE = re.compile(
    r'OUT_OF_MEMORY|NO_MEMORY|ENOMEM|out of memory|no memory')
DECLARATION = re.compile(
    r'^\s*(?:static\s+|const\s+|unsigned\s+|signed\s+)*'
    r'(?:struct\s+\w+|enum\s+\w+|union\s+\w+|void|char|short|int|long|'
    r'float|double|bool|size_t|ssize_t|u?int\d+_t|u8|u16|u32|u64|s8|s16|'
    r's32|s64|work_units|u128|enpu_\w+|rt_\w+|Onnx__\w+|FILE)\b[\s*]*\w')


class Mutant:
    def __init__(self, path, text, start, end, new, op):
        self.path = path
        self.start, self.end, self.new, self.op = start, end, new, op
        self.line = line_of(text, start)
        self.old = text[start:end]
        src = line_text(text, start).strip()
        self.source_line = src
        self.key = None		# set once per line: path, op, line, index

    def apply(self, text):
        return text[:self.start] + self.new + text[self.end:]

    def describe(self):
        old = ' '.join(self.old.split())
        new = ' '.join(self.new.split())
        if len(old) > 60:
            old = old[:57] + '...'
        return '%s:%d %s: `%s` -> `%s`' % (self.path, self.line, self.op,
                                          old, new or '(removed)')


def statement_after(text, close):
    """The statement an if's condition guards: up to its first ';' (a
    block's first statement is enough to see what it does)."""
    end = text.find(';', close)
    return text[close:end if end >= 0 else len(text)]


def mutants_of(path, text, skipped):
    """Every mutant of @text; appends to @skipped one entry per check of an
    allocation result that is deliberately not mutated."""
    mask = code_mask(text)
    found = []

    def code_at(m):
        return all(mask[m.start():m.end()])

    # Flipped comparisons: boundaries moved, equality negated.
    for m in re.finditer(r'(?<![<>=!&|+\-*/%^-])(<=|>=|==|!=|<|>)(?![<>=])',
                         text):
        if not code_at(m) or text[m.start() - 1:m.start() + 1] == '->':
            continue
        if m.group(1) == '>' and text[m.start() - 1] == '-':
            continue
        found.append(Mutant(path, text, m.start(), m.end(),
                            RELATIONAL[m.group(1)], 'flip-comparison'))
    # Swapped operands of a comparison or a subtraction.
    for m in re.finditer(r'(?<![\w.>\]])(%s) (<=|>=|<|>|-) (%s)(?![\w(\[.])' %
                         (OPERAND, OPERAND), text):
        if not code_at(m) or m.group(1) == m.group(3):
            continue
        found.append(Mutant(path, text, m.start(), m.end(),
                            '%s %s %s' % (m.group(3), m.group(2), m.group(1)),
                            'swap-operands'))
    # Swapped operators: + and -, && and ||.
    for m in re.finditer(r'(?<=[\w)\]]) (\+|-|&&|\|\|) (?=[\w(!~])', text):
        if not code_at(m):
            continue
        new = {'+': '-', '-': '+', '&&': '||', '||': '&&'}[m.group(1)]
        found.append(Mutant(path, text, m.start(1), m.end(1), new,
                            'swap-operator'))
    # Constants off by one.
    for m in re.finditer(r'(?<![\w.])(0x[0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])',
                         text):
        if not code_at(m):
            continue
        value = int(m.group(1), 0)
        new = (hex(value + 1) if m.group(1).startswith('0x')
               else str(value + 1)) + m.group(2)
        found.append(Mutant(path, text, m.start(), m.end(), new,
                            'constant-plus-one'))
    # Dropped checks: an if whose condition never holds. Checks of an
    # allocation's result are left alone (see ALLOCATION_FAILURE), and so
    # is every other edit inside their conditions (a `||` turned `&&`
    # between two allocation results differs only when one fails).
    allocation_checks = []
    for m in re.finditer(r'\bif \(', text):
        if not code_at(m):
            continue
        close = matching_paren(text, mask, m.end() - 1)
        if close < 0:
            continue
        if ALLOCATION_FAILURE.search(text, close, close + 300) and \
                ALLOCATION_FAILURE.search(statement_after(text, close)):
            skipped.append(path)
            allocation_checks.append((m.end() - 1, close + 1))
            continue
        found.append(Mutant(path, text, m.end() - 1, close + 1, '(0)',
                            'drop-check'))
    # Removed statements: a whole simple statement on its own line(s).
    pos = 0
    previous = ''
    for raw in text.split('\n'):
        start, end = pos, pos + len(raw)
        pos = end + 1
        stripped = raw.strip()
        prev = previous
        if stripped:
            previous = stripped
        if (not stripped.endswith(';') or not all(mask[start:end]) or
                not prev.endswith((';', '{', '}', ':')) or
                prev.startswith(('if ', 'else', 'for ', 'while ')) or
                re.match(r'(return|break|continue|goto|case|default)\b|[{}]',
                         stripped) or
                DECLARATION.match(raw) or
                ('=' not in stripped and '(' not in stripped)):
            continue
        indent = len(raw) - len(raw.lstrip())
        found.append(Mutant(path, text, start + indent, end, ';',
                            'remove-statement'))
    # Stable keys: the same edit of the same line text keeps its key when
    # other lines move.
    found.sort(key=lambda mu: (mu.start, mu.op, mu.end))
    seen = {}
    for mu in found:
        base = '%s|%s|%s' % (mu.path, mu.op, mu.source_line)
        seen[base] = seen.get(base, -1) + 1
        digest = hashlib.sha1(base.encode()).hexdigest()[:10]
        mu.key = '%s:%s:%s:%d' % (mu.path, mu.op, digest, seen[base])
    # Marked, not removed, so that keys and seeded samples stay the same;
    # main() leaves them out after sampling.
    for mu in found:
        mu.allocation = any(lo <= mu.start < hi
                            for lo, hi in allocation_checks)
    return found


# ---------------------------------------------------------------- config


def read_targets(path):
    """NAME | file globs | build targets | test targets [| sanitized
    tier], one per line."""
    targets = []
    with open(path) as f:
        for raw in f:
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            parts = [p.strip() for p in line.split('|')]
            if len(parts) not in (4, 5):
                raise SystemExit('%s: %r: want 4 or 5 fields' % (path, line))
            name, files, build, test = parts[:4]
            targets.append({'name': name, 'files': files.split(),
                            'build': build.split(), 'test': test.split(),
                            'sanitized': parts[4].split()
                            if len(parts) == 5 else []})
    return targets


def read_equivalent(path):
    """KEY  reason, one per line."""
    equivalent = {}
    if not os.path.exists(path):
        return equivalent
    with open(path) as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            key, _, reason = line.partition(' ')
            equivalent[key] = reason.strip()
    return equivalent


def expand(source, patterns):
    import glob
    files = []
    for pattern in patterns:
        exclude = pattern.startswith('!')
        matches = sorted(os.path.relpath(p, source) for p in
                         glob.glob(os.path.join(source, pattern.lstrip('!'))))
        if exclude:
            files = [f for f in files if f not in matches]
        else:
            files += [f for f in matches if f not in files]
    return files


# ---------------------------------------------------------------- running


def copy_tree(source, dest):
    listed = subprocess.run(
        ['git', '-C', source, 'ls-files', '-z', '--cached', '--others',
         '--exclude-standard'], check=True, capture_output=True).stdout
    for rel in listed.decode().split('\0'):
        if not rel or not os.path.isfile(os.path.join(source, rel)):
            continue
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(source, rel), target)


def run(cmd, cwd, timeout, log):
    """Exit status, or None on timeout (the whole process group killed)."""
    with open(log, 'w') as out:
        proc = subprocess.Popen(['nice', '-n', '10'] + cmd, cwd=cwd,
                                stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None


def image_digest(targets, cwd):
    """A hash of what the tier's programs load (their allocated sections,
    without the build id, which covers the debug info too), or None when
    one is not an ELF file. Two builds with the same digest run the same
    code on the same data: a mutant that leaves it unchanged (code in an
    #if branch this host does not compile, say) cannot be killed here."""
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory(prefix='enpu-mutation-image-') as tmp:
        out = os.path.join(tmp, 'image')
        for target in targets:
            done = subprocess.run(
                ['objcopy', '-O', 'binary', '-R', '.note.gnu.build-id',
                 os.path.join(cwd, target), out], capture_output=True)
            if done.returncode:
                return None
            with open(out, 'rb') as f:
                digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def make(targets, cwd, timeout, log):
    # WARN=-w: a mutant that only trips -Werror (a && inside ||, a
    # variable left unset) still builds and meets the tests.
    return run(['make', '-j2', '--no-print-directory', 'WARN=-w'] + targets,
               cwd, timeout, log)


def rank(seed, mu):
    """A mutant's place in the sample of @seed: a hash of the seed and its
    key, so that an edit of some lines changes only their mutants' places
    and the rest of a sample stays the same."""
    return hashlib.sha1(('%d:%s' % (seed, mu.key)).encode()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--source', default=os.getcwd(),
                        help='tree to copy and mutate (default: here)')
    parser.add_argument('--seed', default='8',
                        help='sample seed, or seeds separated by commas '
                        '(the union of their samples, each mutant once)')
    parser.add_argument('--per-dir', type=int, default=32)
    parser.add_argument('--only', action='append', default=[])
    parser.add_argument('--key', action='append', default=[],
                        help='run only the mutant with this key (e.g. a '
                        'survivor of an earlier run); repeatable')
    parser.add_argument('--list', action='store_true',
                        help='print the sampled mutants and stop')
    parser.add_argument('--report', default=None)
    parser.add_argument('--keep', action='store_true',
                        help='keep the copy of the tree')
    parser.add_argument('--targets', default=os.path.join(HERE, 'targets.txt'))
    parser.add_argument('--equivalent',
                        default=os.path.join(HERE, 'equivalent.txt'))
    args = parser.parse_args()
    seeds = [int(s) for s in args.seed.split(',')]
    source = os.path.abspath(args.source)
    targets = [t for t in read_targets(args.targets)
               if not args.only or t['name'] in args.only]
    equivalent = read_equivalent(args.equivalent)

    plan = []
    for t in targets:
        every, skipped = [], []
        for rel in expand(source, t['files']):
            with open(os.path.join(source, rel)) as f:
                every += mutants_of(rel, f.read(), skipped)
        t['skipped'] = len(skipped)
        t['allocation'] = sum(1 for mu in every if mu.allocation)
        every = [mu for mu in every if not mu.allocation]
        if args.key:
            chosen = [mu for mu in every if mu.key in args.key]
        else:
            union = {}
            for seed in seeds:
                for mu in sorted(every, key=lambda mu: rank(seed, mu))[
                        :args.per_dir]:
                    union[mu.key] = mu
            chosen = sorted(union.values(),
                            key=lambda mu: (mu.path, mu.start))
        if args.key and not chosen:
            continue
        plan.append((t, chosen, len(every)))
    if args.list:
        for t, chosen, total in plan:
            print('== %s: %d of %d mutants (%d allocation-failure checks '
                  'not mutated, %d other edits inside them left out)' %
                  (t['name'], len(chosen), total, t['skipped'],
                   t['allocation']))
            for mu in chosen:
                mark = ' (equivalent)' if mu.key in equivalent else ''
                print('  %s  %s%s' % (mu.key, mu.describe(), mark))
        return 0

    started = time.time()
    work = tempfile.mkdtemp(prefix='enpu-mutation-')
    tree = os.path.join(work, 'tree')
    logs = os.path.join(work, 'logs')
    os.makedirs(logs)
    copy_tree(source, tree)
    print('mutation: copy of %s in %s, seed %s, %d per directory' %
          (source, tree, args.seed, args.per_dir), flush=True)
    results = []
    status = 0
    for t, chosen, total in plan:
        base_log = os.path.join(logs, '%s-base.log' % t['name'])
        t0 = time.time()
        built = make(t['build'], tree, 3600, base_log) == 0
        t1 = time.time()
        if not built or make(t['test'], tree, 3600,
                             base_log + '.test') != 0:
            print('mutation: %s: the tier fails without a mutant (%s)' %
                  (t['name'], base_log), flush=True)
            status = 1
            continue
        tier_seconds = time.time() - t1
        base_image = image_digest(t['build'], tree)
        timeout = max(60.0, 5 * tier_seconds)
        # The sanitized tier (the same tests under ASan and UBSan, part
        # of make check's check-asan) runs only for the plain tier's
        # survivors: a leak or a read past a buffer fails make check
        # too, and the plain tier cannot see it.
        sanitized_timeout = 0.0
        if t['sanitized']:
            t2 = time.time()
            if make(t['sanitized'], tree, 3600, base_log + '.sanitized'):
                print('mutation: %s: the sanitized tier fails without a '
                      'mutant (%s)' % (t['name'], base_log + '.sanitized'),
                      flush=True)
                status = 1
                continue
            sanitized_timeout = max(60.0, 5 * (time.time() - t2))
        counts = {'killed': 0, 'survived': 0, 'equivalent': 0,
                  'stillborn': 0, 'equivalent_killed': 0, 'same_binary': 0,
                  'sanitized': 0}
        survivors = []
        print('== %s: %d of %d mutants, tier %s (%.0f s, timeout %.0f s, '
              'first build %.0f s)' % (t['name'], len(chosen), total,
                                       ' '.join(t['test']), tier_seconds,
                                       timeout, t1 - t0), flush=True)
        for n, mu in enumerate(chosen):
            path = os.path.join(tree, mu.path)
            with open(path) as f:
                original = f.read()
            with open(path, 'w') as f:
                f.write(mu.apply(original))
            log = os.path.join(logs, '%s-%02d.log' % (t['name'], n))
            try:
                built = make(t['build'], tree, 1200, log) == 0
                verdict = 'stillborn'
                if built and base_image and \
                        image_digest(t['build'], tree) == base_image:
                    verdict = 'same-binary'
                elif built:
                    code = make(t['test'], tree, timeout, log + '.test')
                    verdict = 'survived' if code == 0 else 'killed'
                    if code is None:
                        verdict = 'killed'
                    if verdict == 'survived' and t['sanitized']:
                        code = make(t['sanitized'], tree, sanitized_timeout,
                                    log + '.sanitized')
                        if code != 0:
                            verdict = 'killed'
                            counts['sanitized'] += 1
            finally:
                with open(path, 'w') as f:
                    f.write(original)
            listed = mu.key in equivalent
            if listed and verdict == 'killed':
                counts['equivalent_killed'] += 1
                print('  stale entry in equivalent.txt (the tier kills it): '
                      '%s' % mu.key, flush=True)
            if verdict == 'same-binary':
                counts['same_binary'] += 1
            elif listed and verdict != 'stillborn':
                counts['equivalent'] += 1
            else:
                counts[verdict] += 1
            if verdict == 'survived' and not listed:
                survivors.append(mu)
            print('  %-9s %s%s' % (verdict, mu.describe(),
                                   ' [equivalent]' if listed else ''),
                  flush=True)
        # Leave the copy as it was for the next directory.
        make(t['build'], tree, 1200, base_log + '.restore')
        results.append((t, counts, survivors, len(chosen), total))
    elapsed = time.time() - started

    lines = ['', 'mutation score (seed %s, %d per directory, %s):' %
             (args.seed, args.per_dir, time.strftime('%Y-%m-%d %H:%M'))]
    all_killed = all_scored = 0
    for t, c, survivors, sampled, total in results:
        scored = c['killed'] + c['survived']
        all_killed += c['killed']
        all_scored += scored
        rate = 100.0 * c['killed'] / scored if scored else 0.0
        by_sanitizer = ''
        if t['sanitized']:
            by_sanitizer = ', %d of them only by %s' % (
                c['sanitized'], ' '.join(t['sanitized']))
        lines.append('  %-14s %5.1f %%  %3d killed of %3d%s  (%d sampled of '
                     '%d; %d equivalent, %d do not build, %d the same '
                     'binary; %d allocation-failure checks not mutated, '
                     '%d other edits inside them left out)' %
                     (t['name'], rate, c['killed'], scored, by_sanitizer,
                      sampled, total, c['equivalent'], c['stillborn'],
                      c['same_binary'], t['skipped'], t['allocation']))
    total_rate = 100.0 * all_killed / all_scored if all_scored else 0.0
    lines.append('  %-14s %5.1f %%  %3d killed of %3d' %
                 ('all', total_rate, all_killed, all_scored))
    for t, c, survivors, sampled, total in results:
        for mu in survivors:
            lines.append('  survivor %s  %s' % (mu.key, mu.describe()))
    lines.append('mutation: %.0f s wall; logs in %s' % (elapsed, logs))
    text = '\n'.join(lines)
    print(text, flush=True)
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)),
                    exist_ok=True)
        with open(args.report, 'w') as f:
            f.write(text + '\n')
    if not args.keep:
        shutil.rmtree(tree, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
