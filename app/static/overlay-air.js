// @ts-check
// Before an overlay's first frame (issue 18, docs/casparcg.md): inside CasparCG (its HTML
// producer puts `window.caspar` in every page it plays, server 2.2 and later), or with
// ?caspar=1, the graphic starts off air, and comes on with CasparCG's play() (overlay.js).
// A classic script in the head, so that nothing shows before it has run.
if ("caspar" in window || new URLSearchParams(location.search).get("caspar") === "1") {
  document.documentElement.classList.add("off-air");
}
