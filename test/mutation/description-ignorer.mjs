// A Stryker ignorer (`ignorers: ['DescriptionText']` in a module of modules.mjs): the documentation texts of
// schemas are not behaviour, so their mutants are reported as ignored rather than as survivors. Ignored: the
// value of a `description` member, an object literal of nothing but a `description`, and a string passed to a
// function's parameter named `description` (the schema files' `Hex(description)`, `Text(description)`, …).
// Everything else in such an object (limits, patterns, enums, required members, `$id`s) is still mutated.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin'

const REASON = 'documentation text of a schema (description), not behaviour'

const keyName = (prop) => (prop.key?.type === 'Identifier' ? prop.key.name : prop.key?.type === 'StringLiteral' ? prop.key.value : undefined)
const isDescription = (prop) => prop.type === 'ObjectProperty' && !prop.computed && keyName(prop) === 'description'

/**
 * The original expression under what Stryker has already placed there: its switches
 * (`stryMutAct(id) ? mutant : original`), coverage counters (`(stryCov(id), original)`) and, for a
 * function assigned to a name, the call that keeps its name (`(() => { const f = original; return f })()`).
 */
function unplaced(n) {
  for (;;) {
    if (n?.type === 'ConditionalExpression') n = n.alternate
    else if (n?.type === 'ParenthesizedExpression') n = n.expression
    else if (n?.type === 'SequenceExpression') n = n.expressions.at(-1)
    else if (n?.type === 'CallExpression' && n.arguments.length === 0 && n.callee.type === 'ArrowFunctionExpression' && n.callee.body.type === 'BlockStatement') {
      const [decl, ret] = n.callee.body.body
      const d = decl?.type === 'VariableDeclaration' && decl.declarations.length === 1 ? decl.declarations[0] : undefined
      if (!d || ret?.type !== 'ReturnStatement' || ret.argument?.type !== 'Identifier' || d.id.type !== 'Identifier' || d.id.name !== ret.argument.name) return n
      n = d.init
    } else return n
  }
}

/** The name of the parameter of the called function that argument `node` of call `call` binds to, when the callee is a local function. */
function parameterName(path, call, node) {
  if (call.callee.type !== 'Identifier') return undefined
  const binding = path.scope.getBinding(call.callee.name)
  const decl = binding?.path.node
  // The declaration is above the call: its mutants are placed by now, around the function.
  const fn = unplaced(decl?.type === 'VariableDeclarator' ? decl.init : decl)
  if (!fn || !['ArrowFunctionExpression', 'FunctionExpression', 'FunctionDeclaration'].includes(fn.type)) return undefined
  const p = fn.params[call.arguments.indexOf(node)]
  const id = p?.type === 'AssignmentPattern' ? p.left : p
  return id?.type === 'Identifier' ? id.name : undefined
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'DescriptionText', {
    shouldIgnore(path) {
      const { node, parent } = path
      if (node.type === 'ObjectProperty' && isDescription(node)) return REASON
      if (node.type === 'ObjectExpression' && node.properties.length > 0 && node.properties.every(isDescription)) return REASON
      if ((node.type === 'StringLiteral' || node.type === 'TemplateLiteral') && parent?.type === 'CallExpression' && parent.arguments.includes(node) && parameterName(path, parent, node) === 'description')
        return REASON
      return undefined
    }
  })
]
