// A minimal XML well-formedness check for tests: one root, balanced and properly nested tags, quoted
// attributes, only the five predefined entities. Enough to catch broken escaping; no dependency.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string, at: number): string {
  return text.replace(/&([^;\s]*);?/g, (m, name: string) => {
    if (!m.endsWith(";") || !(name in ENTITIES)) throw new Error(`bad entity "${m}" near offset ${at}`);
    return ENTITIES[name]!;
  });
}

/** Parses `xml` or throws saying where it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  let i = 0;
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < body.length) {
    const lt = body.indexOf("<", i);
    const text = body.slice(i, lt === -1 ? body.length : lt);
    if (text.includes(">")) throw new Error(`stray ">" near offset ${i}`);
    if (text.trim()) {
      if (!stack.length) throw new Error(`text outside the root near offset ${i}`);
      stack.at(-1)!.text += decode(text, i);
    }
    if (lt === -1) break;
    const gt = body.indexOf(">", lt);
    if (gt === -1) throw new Error(`unclosed tag at offset ${lt}`);
    const tag = body.slice(lt + 1, gt);
    if (tag.includes("<")) throw new Error(`"<" inside a tag at offset ${lt}`);
    i = gt + 1;
    if (tag.startsWith("/")) {
      const open = stack.pop();
      if (!open || open.name !== tag.slice(1).trim())
        throw new Error(`</${tag.slice(1)}> does not close <${open?.name}> at offset ${lt}`);
      continue;
    }
    const selfClosing = tag.endsWith("/");
    const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*\/?$/.exec(tag);
    if (!m) throw new Error(`malformed tag <${tag}> at offset ${lt}`);
    const attributes: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) attributes[a[1]!] = decode(a[2]!, lt);
    const element: XmlElement = { name: m[1]!, attributes, children: [], text: "" };
    if (stack.length) stack.at(-1)!.children.push(element);
    else if (root) throw new Error(`a second root element at offset ${lt}`);
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error("no root element");
  return root;
}

/** Every element below `root` (depth first) with this name. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) out.push(e);
    e.children.forEach(walk);
  };
  walk(root);
  return out;
}
