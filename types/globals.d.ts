// What the pages put on `window` for the browser tests and for support on the floor.
interface Window {
  judgeTablet: any;
  hallDisplay: any;
  overlayFeed: any;
}
