// Reads {ranges, versions} as JSON on stdin and writes, per range, what
// npm's own semver package says: validRange, maxSatisfying (over versions
// and over the published ones) and the
// versions that satisfy it (loose off, includePrerelease off).
const semver = require(process.argv[2]);
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const { ranges, versions, published } = JSON.parse(input);
  const out = ranges.map((r) => {
    const valid = semver.validRange(r) !== null;
    return {
      valid,
      max: valid ? semver.maxSatisfying(versions, r) : null,
      maxPublished: valid ? semver.maxSatisfying(published, r) : null,
      satisfying: valid ? versions.filter((v) => semver.satisfies(v, r)) : [],
    };
  });
  process.stdout.write(JSON.stringify(out));
});
