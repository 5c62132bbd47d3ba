// Draws the extension's Marketplace / Open VSX icon, media/icon.png (128×128): the heron of the
// activity-bar icon (media/heron.svg), as thick white strokes on a solid teal square.
// Node built-ins only: `node scripts/make-icon.mjs` rewrites the file; the PNG is committed.
import { Buffer } from "node:buffer";
import { writeFileSync } from "node:fs";
import { URL } from "node:url";
import { deflateSync } from "node:zlib";

const SIZE = 128;
const SAMPLES = 4; // per axis, per pixel: 16 samples give smooth edges
const BACKGROUND = [18, 78, 102];
const BIRD = [244, 247, 249];

// The drawing, in the 24×24 coordinates of media/heron.svg, mapped onto the 128 square.
const SCALE = 5.3;
const OFFSET = [64 - 11.8 * SCALE, 64 - 12.3 * SCALE];
const STROKE = 0.95 * SCALE; // half the stroke width

const at = ([x, y]) => [OFFSET[0] + x * SCALE, OFFSET[1] + y * SCALE];

/** Points along a cubic Bézier curve. */
function cubic(p0, p1, p2, p3, steps = 24) {
  const points = [];
  for (let i = 0; i <= steps; i++) {
    const t = i / steps;
    const u = 1 - t;
    const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
    points.push([a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1]]);
  }
  return points;
}

// Neck and body: M9 4 c2 0 3 1.5 3 3 c0 2 -3 3 -3 6 c0 3 3 5 7 5 h4 (as in heron.svg).
const neck = [
  ...cubic([9, 4], [11, 4], [12, 5.5], [12, 7]),
  ...cubic([12, 7], [12, 9], [9, 10], [9, 13]),
  ...cubic([9, 13], [9, 16], [12, 18], [16, 18]),
  [20, 18],
].map(at);
const strokes = [neck, [[12, 18], [12, 21]].map(at), [[15, 18], [15, 21]].map(at)];
const beak = [[9.4, 3.6], [3.6, 5.5], [9.4, 6.4]].map(at);

/** Distance from point p to the segment a–b. */
function segmentDistance(p, a, b) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

function onStroke(p) {
  for (const line of strokes) {
    for (let i = 1; i < line.length; i++) if (segmentDistance(p, line[i - 1], line[i]) <= STROKE) return true;
  }
  return false;
}

function inTriangle(p, [a, b, c]) {
  const side = (u, v) => (v[0] - u[0]) * (p[1] - u[1]) - (v[1] - u[1]) * (p[0] - u[0]);
  const s1 = side(a, b), s2 = side(b, c), s3 = side(c, a);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

const eye = at([10.2, 4.6]);
const isBird = (p) => Math.hypot(p[0] - eye[0], p[1] - eye[1]) > 0.32 * SCALE && (onStroke(p) || inTriangle(p, beak));

// RGBA rows, each preceded by PNG filter type 0 (none).
const raw = Buffer.alloc(SIZE * (1 + SIZE * 4));
for (let y = 0; y < SIZE; y++) {
  const row = y * (1 + SIZE * 4);
  for (let x = 0; x < SIZE; x++) {
    let covered = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        if (isBird([x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES])) covered++;
      }
    }
    const share = covered / (SAMPLES * SAMPLES);
    const pixel = row + 1 + x * 4;
    for (let c = 0; c < 3; c++) raw[pixel + c] = Math.round(BACKGROUND[c] + (BIRD[c] - BACKGROUND[c]) * share);
    raw[pixel + 3] = 255;
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0); // width
header.writeUInt32BE(SIZE, 4); // height
header.writeUInt8(8, 8); // bit depth
header.writeUInt8(6, 9); // colour type: RGBA
// compression, filter and interlace methods: 0

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", header),
  chunk("IDAT", deflateSync(raw, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
writeFileSync(new URL("../media/icon.png", import.meta.url), png);
console.log(`media/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes`);
