/**
 * Project lint rules that `deno lint` has no built-in for.
 *
 * - `relavium/no-default-export`: named exports only.
 * - `relavium/no-top-level-arrow`: top-level `function`, not arrow consts.
 *
 * @module
 */

const plugin: Deno.lint.Plugin = {
  name: "relavium",
  rules: {
    "no-default-export": {
      create(context) {
        return {
          ExportDefaultDeclaration(node) {
            context.report({
              node,
              message: "Use a named export instead of a default export",
            });
          },
        };
      },
    },
    "no-top-level-arrow": {
      create(context) {
        return {
          "Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator"(
            node: Deno.lint.VariableDeclarator,
          ) {
            if (node.init?.type === "ArrowFunctionExpression") {
              context.report({
                node,
                message:
                  "Declare exported functions with `function`, not an arrow const",
              });
            }
          },
        };
      },
    },
  },
};

// deno-lint-ignore relavium/no-default-export
export default plugin;
