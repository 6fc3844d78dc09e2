package impact

import (
	"sync"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
)

// Who writes an object next is not known at plan: a policy whose expressions read
// request.userInfo or call the authorizer (authorizer, and through it its checks of the
// writer) can answer otherwise for each writer, so its verdict on an existing object is
// "cannot tell". The expressions are parsed as CEL, so that a name in a string or a comment
// does not count.

// readsWriter names what of the writer the expressions read, "" when none: "request.userInfo",
// "the authorizer".
func readsWriter(expressions ...string) string {
	for _, e := range expressions {
		if e == "" {
			continue
		}
		if what := writerIn(e); what != "" {
			return what
		}
	}
	return ""
}

var celParser = sync.OnceValues(func() (*parser.Parser, error) { return parser.NewParser(parser.Macros(parser.AllMacros...)) })

func writerIn(expression string) string {
	p, err := celParser()
	if err != nil {
		return ""
	}
	tree, errs := p.Parse(common.NewTextSource(expression))
	if errs != nil && len(errs.GetErrors()) > 0 {
		// The server does not compile it either; its failure is the verdict's.
		return ""
	}
	found := ""
	ast.PreOrderVisit(tree.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if found != "" {
			return
		}
		switch e.Kind() {
		case ast.IdentKind:
			if e.AsIdent() == "authorizer" {
				found = "the authorizer"
			}
		case ast.SelectKind:
			s := e.AsSelect()
			if s.FieldName() == "userInfo" && s.Operand().Kind() == ast.IdentKind && s.Operand().AsIdent() == "request" {
				found = "request.userInfo"
			}
		}
	}))
	return found
}
