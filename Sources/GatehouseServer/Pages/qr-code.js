// A QR code (ISO/IEC 18004) of `text` in byte mode at error correction level M, versions 1-10:
// an array of rows of booleans (true: dark), without the quiet zone. Longer than 213 bytes of
// UTF-8: a RangeError. The sample app draws it for the TOTP enrolment's otpauth:// link, so no
// image of the secret leaves or enters the page.
function qrCode(text) {
  const data = Array.from(new TextEncoder().encode(text));
  // Error correction level M, versions 1-10: codewords per block, and number of blocks.
  const EC_PER_BLOCK = [10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
  const BLOCKS = [1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
  const rawCodewords = (version) => {
    let modules = (16 * version + 128) * version + 64;
    if (version >= 2) {
      const align = Math.floor(version / 7) + 2;
      modules -= (25 * align - 10) * align - 55;
      if (version >= 7) modules -= 36;
    }
    return Math.floor(modules / 8);
  };
  const dataCodewords = (v) => rawCodewords(v) - EC_PER_BLOCK[v - 1] * BLOCKS[v - 1];
  let version = 1;
  while (4 + (version < 10 ? 8 : 16) + 8 * data.length > 8 * dataCodewords(version)) {
    if (++version > 10) throw new RangeError("too long for a QR code of version 10");
  }
  const capacity = dataCodewords(version);

  // The bit stream: mode 0100 (bytes), the length, the bytes, terminator, padding.
  const bits = [];
  const put = (value, count) => { for (let i = count - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(4, 4);
  put(data.length, version < 10 ? 8 : 16);
  for (const byte of data) put(byte, 8);
  put(0, Math.min(4, capacity * 8 - bits.length));
  put(0, (8 - bits.length % 8) % 8);
  const codewords = [];
  for (let i = 0; i < bits.length; i += 8) codewords.push(parseInt(bits.slice(i, i + 8).join(""), 2));
  for (let pad = 0xec; codewords.length < capacity; pad ^= 0xec ^ 0x11) codewords.push(pad);

  // Reed-Solomon over GF(2^8) with the polynomial 0x11d.
  const multiply = (x, y) => {
    let z = 0;
    for (let i = 7; i >= 0; i--) { z = (z << 1) ^ ((z >>> 7) * 0x11d); z ^= ((y >>> i) & 1) * x; }
    return z;
  };
  const degree = EC_PER_BLOCK[version - 1];
  const divisor = new Array(degree).fill(0);
  divisor[degree - 1] = 1;
  for (let i = 0, root = 1; i < degree; i++, root = multiply(root, 2)) {
    for (let j = 0; j < degree; j++) {
      divisor[j] = multiply(divisor[j], root);
      if (j + 1 < degree) divisor[j] ^= divisor[j + 1];
    }
  }
  const remainder = (block) => {
    const result = new Array(degree).fill(0);
    for (const byte of block) {
      const factor = byte ^ result.shift();
      result.push(0);
      divisor.forEach((coefficient, i) => { result[i] ^= multiply(coefficient, factor); });
    }
    return result;
  };

  // Blocks (the short ones first, one data codeword fewer), then interleaved: data, then ECC.
  const blockCount = BLOCKS[version - 1];
  const short = Math.floor(capacity / blockCount);
  const longCount = capacity % blockCount;
  const blocks = [];
  for (let b = 0, at = 0; b < blockCount; b++) {
    const length = short + (b >= blockCount - longCount ? 1 : 0);
    blocks.push(codewords.slice(at, at + length));
    at += length;
  }
  const ecc = blocks.map(remainder);
  const stream = [];
  for (let i = 0; i <= short; i++) for (const block of blocks) if (i < block.length) stream.push(block[i]);
  for (let i = 0; i < degree; i++) for (const block of ecc) stream.push(block[i]);

  // The matrix: function patterns first (marked reserved), then the data, then a mask.
  const size = 17 + 4 * version;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const reserved = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (x, y, on) => { dark[y][x] = on; reserved[y][x] = true; };
  for (let i = 0; i < size; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
      const x = cx + dx, y = cy + dy, distance = Math.max(Math.abs(dx), Math.abs(dy));
      if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, distance !== 2 && distance !== 4);
    }
  }
  if (version >= 2) {
    const count = Math.floor(version / 7) + 2;
    const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
    const positions = [6];
    for (let at = size - 7; positions.length < count; at -= step) positions.splice(1, 0, at);
    for (const cx of positions) for (const cy of positions) {
      if ((cx === 6 && cy === 6) || (cx === 6 && cy === size - 7) || (cx === size - 7 && cy === 6)) continue;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
  }
  const drawFormat = (mask) => {
    // Level M is 00; BCH(15,5) with 0x537, then XOR 0x5412.
    const value = mask;
    let rem = value;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const format = ((value << 10) | rem) ^ 0x5412;
    const bit = (i) => ((format >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) set(8, i, bit(i));
    set(8, 7, bit(6));
    set(8, 8, bit(7));
    set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
    set(8, size - 8, true);
  };
  drawFormat(0);
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const info = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const on = ((info >>> i) & 1) === 1, a = size - 11 + (i % 3), b = Math.floor(i / 3);
      set(a, b, on);
      set(b, a, on);
    }
  }
  // Data in two-module columns, zigzagging up and down from the bottom right, skipping column 6.
  let index = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vertical = 0; vertical < size; vertical++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j, upward = ((right + 1) & 2) === 0, y = upward ? size - 1 - vertical : vertical;
        if (!reserved[y][x] && index < stream.length * 8) {
          dark[y][x] = ((stream[index >>> 3] >>> (7 - (index & 7))) & 1) === 1;
          index++;
        }
      }
    }
  }

  const MASKS = [
    (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x, y) => x % 3 === 0, (x, y) => (x + y) % 3 === 0,
    (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0, (x, y) => (x * y) % 2 + (x * y) % 3 === 0,
    (x, y) => ((x * y) % 2 + (x * y) % 3) % 2 === 0, (x, y) => ((x + y) % 2 + (x * y) % 3) % 2 === 0,
  ];
  const applyMask = (mask) => {
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (!reserved[y][x] && MASKS[mask](x, y)) dark[y][x] = !dark[y][x];
  };
  // The penalty rules: runs of five or more, 2×2 blocks, finder-like patterns, dark/light balance.
  const penalty = () => {
    let score = 0, darkCount = 0;
    const finderLike = [[1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1]];
    for (const transposed of [false, true]) {
      const at = (i, j) => (transposed ? dark[j][i] : dark[i][j]);
      for (let i = 0; i < size; i++) {
        let run = 1;
        for (let j = 1; j <= size; j++) {
          if (j < size && at(i, j) === at(i, j - 1)) { run++; continue; }
          if (run >= 5) score += run - 2;
          run = 1;
        }
        for (let j = 0; j + 11 <= size; j++) {
          for (const pattern of finderLike) if (pattern.every((on, k) => at(i, j + k) === (on === 1))) score += 40;
        }
      }
    }
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
      if (dark[y][x]) darkCount++;
      if (x + 1 < size && y + 1 < size && dark[y][x] === dark[y][x + 1] && dark[y][x] === dark[y + 1][x] && dark[y][x] === dark[y + 1][x + 1]) score += 3;
    }
    const total = size * size;
    return score + (Math.ceil(Math.abs(darkCount * 20 - total * 10) / total) - 1) * 10;
  };
  let best = 0, bestScore = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    applyMask(mask);
    drawFormat(mask);
    const score = penalty();
    if (score < bestScore) { best = mask; bestScore = score; }
    applyMask(mask);
  }
  applyMask(best);
  drawFormat(best);
  return dark;
}
