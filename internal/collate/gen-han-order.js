// Writes han-order.txt: the Han characters of the BMP (NFC forms only)
// that ICU's zh collation places between the digits and Latin, in the
// order localeCompare(a, b, "zh-CN") gives, one line per primary weight
// (characters equal at primary strength share a line). The few Han-script
// marks ICU sorts with the symbols (々, 〻) are left out.
// Run from internal/collate: node gen-han-order.js
const fs = require("fs");
const chars = [];
for (let c = 0; c <= 0xFFFF; c++) {
  if (c >= 0xD800 && c <= 0xDFFF) continue;
  const s = String.fromCodePoint(c);
  if (/\p{Script=Han}/u.test(s) && s.normalize("NFC") === s && s.localeCompare("0", "zh-CN") > 0) chars.push(s);
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
