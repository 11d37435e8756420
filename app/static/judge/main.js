// @ts-check
// The judge's tablet page (judge.html): outbox.js keeps and sends what the judge enters,
// state.js says what the tablet shows, views.js draws it and takes the judge's taps.

import { Tablet } from "./views.js";

if (document.getElementById("judge")) {
  const tablet = new Tablet();
  window.judgeTablet = tablet; // for the browser tests and for support on the floor
  tablet.start();
}
