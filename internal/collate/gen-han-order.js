// Writes han-order.txt: the Han characters of the BMP (NFC forms only) in
// the order localeCompare(a, b, "zh-CN") gives, one line per primary
// weight (characters equal at primary strength share a line).
// Run from internal/collate: node gen-han-order.js
const fs = require("fs");
const chars = [];
for (const [lo, hi] of [[0x3400, 0x4DBF], [0x4E00, 0x9FFF], [0xF900, 0xFAFF]]) {
  for (let c = lo; c <= hi; c++) {
    const s = String.fromCodePoint(c);
    if (/\p{Script=Han}/u.test(s) && s.normalize("NFC") === s) chars.push(s);
  }
}
chars.sort((a, b) => a.localeCompare(b, "zh-CN"));
const lines = [];
for (const c of chars) {
  const last = lines[lines.length - 1];
  if (last && last[0].localeCompare(c, "zh-CN", { sensitivity: "base" }) === 0) last.push(c);
  else lines.push([c]);
}
fs.writeFileSync("han-order.txt",
  "# ICU " + process.versions.icu + " (CLDR " + process.versions.cldr + "), node " + process.version + "\n" +
  lines.map(l => l.join("")).join("\n") + "\n");
