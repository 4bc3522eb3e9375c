// qr
const a = "#fff";
