package celcompile

import (
	"strconv"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// Match conditions come in families that differ only in their string constants: one namespace,
// user or label per condition, repeated over the webhooks. Whether such an expression compiles
// does not depend on a constant that is only compared with something (==, !=, in, startsWith,
// endsWith, contains) or used as the key of an index into a variable (labels["app"]): parsing sees a string token whatever its text, the
// checker sees a string, and the program builder, for these positions, puts the value in a node
// without looking at it. So the expression with its plain string literals replaced by
// placeholders (its shape) is checked once, and every expression of a valid shape is valid.
//
// Shapes are only used where that argument is airtight: text the scanner below reads exactly
// as CEL's lexer does, every placeholder once in the checked expression and in such a position.
// Anything else (escapes, raw or byte strings, comments, a constant given to matches(),
// duration(), format(), quantity(), ...) is compiled expression by expression.

// maxShapedLength keeps both an expression and its shape far below the parser's size limit
// (100,000 code points), so that the limit cannot tell them apart.
const maxShapedLength = 4096

// shapeOf returns expr with its k-th string literal replaced by "#k", and the number of
// literals, or false if expr has none or contains text whose tokens the scanner cannot be sure of.
func shapeOf(expr string) (shape string, literals int, ok bool) {
	if len(expr) > maxShapedLength {
		return "", 0, false
	}
	var b strings.Builder
	b.Grow(len(expr))
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\\' || c == '`':
			return "", 0, false // escapes and quoted identifiers: leave them to the lexer
		case c == '/' && strings.HasPrefix(expr[i:], "//"):
			return "", 0, false // a comment may hide quotes
		case c == '"' || c == '\'':
			if i > 0 && isIdentByte(expr[i-1]) {
				return "", 0, false // r'…', b'…' and other prefixed literals
			}
			end := i + 1
			for end < len(expr) && expr[end] != c {
				if d := expr[end]; d < ' ' || d > '~' || d == '\\' {
					return "", 0, false // only printable ASCII, so the value is the text as written
				}
				end++
			}
			if end == len(expr) {
				return "", 0, false // unterminated
			}
			if end == i+1 && end+1 < len(expr) && expr[end+1] == c {
				return "", 0, false // the start of a triple-quoted string, not an empty one
			}
			b.WriteString(`"#`)
			b.WriteString(strconv.Itoa(literals))
			b.WriteByte('"')
			literals++
			i = end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	if literals == 0 {
		return "", 0, false
	}
	return b.String(), literals, true
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// validShape reports whether every expression of this shape, which has this many placeholders,
// is certainly valid in env. Verdicts on shapes are kept in the compile cache, under their own
// kind (kindShape): no error when every expression of the shape is valid, an error when each
// must be compiled.
func validShape(env Env, shape string, placeholders int) bool {
	key := compileKey{env: env, kind: kindShape, expr: shape}
	if c, ok := cache.get(key); ok {
		return c.err == nil
	}
	valid := judgeShape(env, shape, placeholders)
	verdict := compiled{}
	if !valid {
		verdict.err = errShapeNotProven
	}
	cache.put(key, verdict)
	return valid
}

// errShapeNotProven is the cached verdict on a shape whose expressions must each be compiled.
var errShapeNotProven = &apiservercel.Error{Type: apiservercel.ErrorTypeInternal, Detail: "shape not proven valid"}

// judgeShape compiles a shape and checks that its placeholders stand where their values cannot
// change the outcome.
func judgeShape(e Env, shape string, placeholders int) bool {
	env := matchConditionEnv(e)
	if env == nil {
		return false
	}
	checked := checkedValid(env, shape)
	if checked == nil {
		return false
	}
	a := checked.NativeRep()
	seen := make([]int, placeholders)
	if !placeholdersBlind(a.Expr(), false, seen) {
		return false
	}
	for _, n := range seen {
		if n != 1 {
			return false // lost or copied by a macro: not the simple picture assumed above
		}
	}
	// Building the program does not look at these placeholders either, so it succeeds for
	// every expression of the shape if it does for the shape.
	return programCannotFail(a) || fullCompile(e, shape) == nil
}

// comparisons are the functions that only compare their arguments, returning a bool; a constant
// among their arguments, or in a list literal among them, is looked at only when evaluated.
var comparisons = map[string]bool{
	operators.Equals:     true,
	operators.NotEquals:  true,
	operators.In:         true,
	overloads.StartsWith: true,
	overloads.EndsWith:   true,
	overloads.Contains:   true,
}

// placeholdersBlind walks e and counts each placeholder in seen. It returns false if one stands
// where its value may matter before evaluation. blind says whether a string literal at e does not
// matter: e is an argument of a comparison (possibly inside list literals), or the constant key
// of an index into a variable's field (object.metadata.labels["app"]).
func placeholdersBlind(e ast.Expr, blind bool, seen []int) bool {
	switch e.Kind() {
	case ast.LiteralKind:
		s, isString := e.AsLiteral().(types.String)
		if !isString {
			return true
		}
		k, isPlaceholder := placeholderIndex(string(s), len(seen))
		if !isPlaceholder {
			return true // a field name the parser made from text that every expression shares
		}
		seen[k]++
		return blind
	case ast.IdentKind:
		return true
	case ast.ListKind:
		for _, elem := range e.AsList().Elements() {
			if !placeholdersBlind(elem, blind, seen) {
				return false
			}
		}
		return true
	case ast.CallKind:
		call := e.AsCall()
		var args []ast.Expr
		if call.IsMemberFunction() {
			args = append(args, call.Target())
		}
		args = append(args, call.Args()...)
		fn := call.FunctionName()
		for i, arg := range args {
			argBlind := comparisons[fn] ||
				fn == operators.Index && i == 1 && arg.Kind() == ast.LiteralKind && isAttribute(args[0])
			if !placeholdersBlind(arg, argBlind, seen) {
				return false
			}
		}
		return true
	case ast.SelectKind:
		return placeholdersBlind(e.AsSelect().Operand(), false, seen)
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, part := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			if !placeholdersBlind(part, false, seen) {
				return false
			}
		}
		return true
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			if !placeholdersBlind(me.Key(), false, seen) || !placeholdersBlind(me.Value(), false, seen) {
				return false
			}
		}
		return true
	case ast.StructKind:
		for _, field := range e.AsStruct().Fields() {
			if !placeholdersBlind(field.AsStructField().Value(), false, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// isAttribute reports whether e is a variable or a field of one: its value is never a constant.
func isAttribute(e ast.Expr) bool {
	return e.Kind() == ast.IdentKind || e.Kind() == ast.SelectKind
}

// placeholderIndex parses "#k" as written by shapeOf, for k < n.
func placeholderIndex(s string, n int) (int, bool) {
	digits, ok := strings.CutPrefix(s, "#")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(digits)
	if err != nil || k < 0 || k >= n || strconv.Itoa(k) != digits {
		return 0, false
	}
	return k, true
}
