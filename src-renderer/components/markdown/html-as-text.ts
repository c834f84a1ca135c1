/** The slice of an mdast node this plugin reads and rewrites. */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/**
 * A remark plugin that turns raw HTML in a message into plain text: markup a model writes is
 * shown as written, never rendered (no element, attribute or script of its making reaches the
 * page), and nothing the model said disappears either.
 */
export function remarkHtmlAsText() {
  const visit = (node: MdNode): void => {
    if (node.type === 'html') node.type = 'text';
    node.children?.forEach(visit);
  };
  return (tree: MdNode) => visit(tree);
}
