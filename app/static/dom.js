// @ts-check
// Building the pages' elements with their text always set as text, never as HTML: the admin
// console, its check-in card and the scorer's screen (each had its own copy).

/**
 * An element with its attributes (`class` as its class name, `dataset` as its data-*; a
 * null, undefined or false one left out, true as a bare attribute) and children (nodes, or
 * text; null, undefined and false left out).
 * @param {string} tag
 * @param {Record<string, any>} [attributes]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
