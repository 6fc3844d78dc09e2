package celcompile

import (
	"fmt"
	"strings"
	"testing"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/celtest"
)

// shortcutCorpus holds expressions of every kind the two shortcuts of compile could misjudge:
// valid and invalid, with or without string literals, each library, program-time failures.
var shortcutCorpus = []string{
	// valid, of the usual kinds
	`true`,
	`request.namespace != "kube-system"`,
	`request.namespace != 'kube-system' && request.dryRun != true`,
	`!(request.userInfo.username in ["system:admin", 'system:kube-scheduler'])`,
	`!request.userInfo.groups.exists(g, g == "system:masters")`,
	`request.userInfo.groups.all(g, g != "x") && request.userInfo.groups.exists_one(g, g == "y")`,
	`!has(object.metadata.labels) || !("skip" in object.metadata.labels)`,
	`has(object.metadata.labels) && object.metadata.labels["app"] == "web"`,
	`object.metadata.name.startsWith("app-") || object.metadata.name.endsWith("-x") || object.metadata.name.contains("y")`,
	`request.resource.group != "apps" && request.resource.resource == "deployments"`,
	`request.operation in ["CREATE", "UPDATE"]`,
	`request.kind.kind == 'Pod' && request.subResource == ''`,
	`namespaceObject.metadata.name != 'x' && 'team' in namespaceObject.metadata.labels`,
	`namespaceObject.status.phase == "Active"`,
	`request.options == null`,
	`oldObject == null || oldObject.metadata.name == object.metadata.name`,
	`object.spec.replicas > 3 && object.spec.replicas <= 10 && object.spec.replicas % 2 == 0`,
	`size(object.metadata.name) < 64 && object.metadata.name.size() > 0`,
	`-object.x < 0 && object.a + object.b - object.c * object.d / object.e >= 1`,
	`object.x in []`,
	`[[1]][0] == [1]`,
	`{'a': 1, 'a': 2}.size() == 2`,
	`object[1.5] == 1`,
	`object.spec.enabled == true`,
	`object.spec.enabled ? object.spec.x == 'a' : object.spec.y == 'b'`,
	`[1, 2].map(x, x * 2) == [2, 4] && [1, 2].filter(x, x > 1) == [2]`,
	"  true  ",
	"request.namespace\n  != 'a'",
	`request.namespace == "" && request.name == ''`,
	`request.namespace == "it's" && request.name == 'say "hi"'`,
	`request.namespace == "\"" && request.name == '\x41'`,
	`request.namespace == r"a\d" && request.name == R'b'`,
	`request.namespace == b"x" || request.namespace == "é"`,
	`request.namespace == """triple""" || request.name == '''t'''`,
	`request.namespace == "a" // a comment "with quotes"`,
	"object.metadata.`name` == 'a'",
	"object.`a-b`.c == 'a'",
	// optional syntax
	`object.?metadata.?name.orValue('') == 'x'`,
	`object.?metadata.?labels[?'app'].hasValue()`,
	`object.?metadata.?name.or(optional.of('a')).value() == 'a'`,
	`object.?spec.optMap(s, s.x).orValue(1) == 1`,
	`[?object.?x, 1].size() == 1`,
	`object.?x.value() == 1`,
	// authorizer
	`authorizer.requestResource.check('get').allowed()`,
	`authorizer.serviceAccount('ns', 'sa').group('').resource('pods').namespace('ns').check('create').allowed()`,
	`authorizer.requestResource.labelSelector('a=b').check('list').allowed()`,
	`authorizer.group('apps').resource('deployments').check('get').reason() == ''`,
	`authorizer.path('/healthz').check('get').allowed()`,
	// libraries and extensions
	`[3, 1, 2].sort() == [1, 2, 3] && [1, 2].slice(0, 1) == [1] && lists.range(3).size() == 3`,
	`[1, 2].isSorted() && [1, 2].sum() == 3 && [1, 2].indexOf(2) == 1`,
	`'abc'.charAt(0) == 'a' && 'a,b'.split(',').size() == 2 && 'abc'.indexOf('b') == 1`,
	`'Abc'.lowerAscii() == 'abc' && 'abc'.upperAscii() == 'ABC' && ' a '.trim() == 'a'`,
	`'abc'.replace('b', 'x') == 'axc' && 'abc'.substring(1) == 'bc' && ['a', 'b'].join(',') == 'a,b'`,
	`strings.quote('a') == '"a"'`,
	`'%s-%d'.format(['a', 1]) == 'a-1'`,
	`'%d'.format(['x']) == ''`,
	`'%q'.format([1]) == ''`,
	`'abc'.reverse() == 'cba'`,
	`semver('1.2.3').major() == 1 && isSemver('1.2.3')`,
	`semver('x').major() == 1`,
	`quantity('1Gi').isInteger() && isQuantity('1Gi')`,
	`quantity('x').isInteger()`,
	`ip('10.0.0.1').family() == 4 && isIP('::1')`,
	`ip('x').family() == 4`,
	`cidr('10.0.0.0/8').containsIP('10.1.2.3')`,
	`cidr('x').prefixLength() == 1`,
	`isURL('https://example.com') && url('https://example.com').getHost() == 'example.com'`,
	`url('::').getHost() == ''`,
	`sets.contains([1, 2], [1]) && sets.intersects([1], [1]) && sets.equivalent([1], [1])`,
	`[1, 2].all(i, v, i >= 0 && v > 0)`,
	`{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}`,
	`[1, 2].transformList(i, v, v * 2) == [2, 4]`,
	`!format.dns1123Label().validate('x').hasValue()`,
	`format.named('dns1123Label').hasValue()`,
	`format.named('nope').hasValue()`,
	`'abc'.matches('^a') && object.metadata.name.matches('b')`,
	`object.metadata.name.find('[a-z]+') == 'a' && object.metadata.name.findAll('a').size() > 0`,
	`duration('1s') < duration('2s') && timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')`,
	`[1, 2].includes(1)`,
	`object.metadata.finalizers.includes('x')`,
	`type(object) == string`,
	`dyn(1) == 1 && int(object.x) == 1 && string(object.y) == 'a' && uint(object.z) == 1u`,
	`double(object.x) == 1.0 && bytes(object.y) == b'a' && bool(object.z)`,
	`google.protobuf.Int64Value{value: 1} == 1`,
	`cel.bind(x, 1, x == 1)`,
	// not a bool
	`object.spec.enabled`, `1`, `'s'`, `"s"`, `null`, `object`, `request`, `optional.of(true)`,
	`object.metadata.name.upperAscii()`, `authorizer.requestResource.check('get')`, `[true]`, `{'a': true}`,
	`request.namespace + "x"`, `object.?spec`, `request.userInfo.groups.map(g, g == 'a')`,
	// syntax errors and limits
	`object.metadata.name ==`, `size(`, `a b`, `'unterminated`, `"unterminated`, `object.x == 1 &&`, `true)`,
	`request.namespace == 'a'b'`, `request.namespace == "a\q"`, `request.namespace == "a` + "\n" + `b"`,
	`request.namespace == '''a`, `request.namespace == """"`, `request.namespace == ''''`,
	"request.namespace == `a`", `object.x[`, `has(object)`, `object.exists(1, true)`,
	strings.Repeat("(", 100) + "true" + strings.Repeat(")", 100),
	strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300),
	strings.Repeat("!", 300) + "true",
	strings.Repeat("request.namespace == 'a' || ", 600) + "true",
	strings.Repeat("request.namespace == 'a' || ", 150) + "true",
	"'" + strings.Repeat("a", 100000-8) + "' != ''",
	"'" + strings.Repeat("a", 100001-8) + "' != ''",
	"'" + strings.Repeat("a", maxShapedLength-8) + "' != ''",
	"'" + strings.Repeat("a", maxShapedLength-7) + "' != ''",
	// costly, still accepted at create (cost is not estimated for match conditions)
	`object.items.all(a, object.items.all(b, object.items.all(c, a + b + c != 'x')))`,
	`object.items.map(a, object.items.map(b, a + b)).size() > 0`,
	strings.Repeat("object.x.y.z == 'a' && ", 200) + "true",
	// unknown or undeclared references
	`params.x == 1`, `params == null`, `variables.x == 1`, `request.foo == 'x'`, `request.uid == 'x'`,
	`foo`, `request.object == null`, `namespaceObject.spec.x == 1`, `authorizer.foo()`, `object.x.undefinedFunc()`,
	// type errors
	`1 + 'a' == 2`, `[1, 'a'].size() == 2`, `[1, 'a'] == []`, `{'a': 1, 1: 'a'}.size() == 2`,
	`request.namespace == 1`, `request.namespace > 1`, `request.namespace in 1`, `request.dryRun.startsWith('a')`,
	`request["name"] == 'a'`, `request.userInfo.groups[0] == 1`,
	// literals checked while compiling
	`'a'.matches('[')`, `object.metadata.name.matches('a{2,1}')`, `duration('1x') > duration('1s')`,
	`timestamp('not a time') == timestamp('2020-01-01T00:00:00Z')`,
	// program construction failures (reported by the server as internal errors)
	`'abc'.find('[') == ''`, `'abc'.findAll('[').size() == 0`, `object.metadata.name.find('(') == ''`,
	`int('x') == 1`, `uint(-1) == 1u`, `double('x') == 1.0`, `bool('maybe')`, `string(b'\xff') == ''`,
	`duration('1x') > duration(object.x)`, `timestamp(123456789012345) == timestamp(object.x)`,
	`object[['a']] == 1`, `object[{'a': 1}] == 1`, `object[null] == 1`, `object[b'x'] == 1`,
	`object[?['a']] == optional.none()`, `object.metadata.labels[['a'][0]] == 'a'`,
	// the compiler panics (the server resets the request)
	`{b'x': 1}.size() == 1`, `{'a': {b'x': 1}}.size() == 1`,
}

func sameResult(a, b *apiservercel.Error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Detail == b.Detail
}

func describe(err *apiservercel.Error) string {
	if err == nil {
		return "valid"
	}
	return fmt.Sprintf("%s: %s", err.Type, err.Detail)
}

// checkShortcuts compares compile, and each of its two shortcuts, with the compiler on expr.
func checkShortcuts(t *testing.T, expr string) {
	t.Helper()
	want := fullCompile(assumedNew, expr)
	if quickValid(assumedNew, expr) && want != nil {
		t.Errorf("quick check accepts %q, the compiler says %s", expr, describe(want))
	}
	if shape, n, ok := shapeOf(expr); ok && validShape(assumedNew, shape, n) && want != nil {
		t.Errorf("shape %q accepts %q, the compiler says %s", shape, expr, describe(want))
	}
	if got := compile(assumedNew, expr); !sameResult(got, want) {
		t.Errorf("compile(%q) = %s, the compiler says %s", expr, describe(got), describe(want))
	}
}

// TestShortcutsAgreeWithCompiler: on every expression of the corpus, compile gives the
// compiler's result, and no shortcut accepts what the compiler rejects.
func TestShortcutsAgreeWithCompiler(t *testing.T) {
	celtest.ResetCache()
	for _, expr := range shortcutCorpus {
		checkShortcuts(t, expr)
	}
}

// TestCompilerPanic: an expression the compiler panics on is rejected with an internal error,
// as the API server rejects it (it resets the request), and does not crash the provider.
func TestCompilerPanic(t *testing.T) {
	celtest.ResetCache()
	err := compile(assumedNew, `{b'x': 1}.size() == 1`)
	if err == nil || err.Type != apiservercel.ErrorTypeInternal || !strings.Contains(err.Detail, "unhashable") {
		t.Errorf("compile = %s, want an internal error naming the panic", describe(err))
	}
}

// shapeFamilies have one string-literal slot (%s). A family's shape is judged on a harmless
// value first; the other values, several of which break a function that reads its argument
// while compiling, must then still get the compiler's verdict.
var shapeFamilies = []string{
	// the value is only compared: every value is fine
	`request.namespace == %s`,
	`request.namespace != %s && request.name != 'x'`,
	`%s in object.metadata.labels`,
	`object.metadata.labels[%s] == %s`,
	`request.userInfo.username in [%s, 'x', %s]`,
	`object.metadata.name.startsWith(%s) || object.metadata.name.endsWith(%s) || %s.contains(object.x)`,
	`request.userInfo.groups.exists(g, g == %s)`,
	// the value is read while compiling or building the program
	`object.metadata.name.matches(%s)`,
	`%s.matches('a')`,
	`object.metadata.name.find(%s) == ''`,
	`object.metadata.name.findAll(%s).size() > 0`,
	`object.metadata.name.matches([%s][0])`,
	`duration(%s) > duration('1s')`,
	`timestamp(%s) > timestamp('2020-01-01T00:00:00Z')`,
	`%s.format([1]) == ''`,
	`'%%s'.format([%s]) == ''`,
	`quantity(%s).isInteger()`,
	`isQuantity(%s)`,
	`ip(%s).family() == 4`,
	`cidr(%s).prefixLength() == 8`,
	`url(%s).getHost() == ''`,
	`semver(%s).major() == 1`,
	`format.named(%s).hasValue()`,
	`int(%s) == 1`,
	`double(%s) == 1.0`,
	`bool(%s)`,
	`dyn(%s) == 'a'`,
	`object.metadata.name.split(%s).size() == 1`,
	`{%s: 1}.size() == 1`,
	`object[[%s]] == 1`,
	`[%s][0] == 'a'`,
	`[%s].exists(x, x == 'a')`,
	`object.x == %s && object.metadata.name.matches(%s)`,
}

var shapeValues = []string{
	`'x'`, `"x"`, `''`, `'['`, `'a{2,1}'`, `'(?i)a'`, `'1x'`, `'1s'`, `'%d'`, `'%s'`, `'%'`, `'1Gi'`, `'x'`,
	`'10.0.0.1'`, `'10.0.0.0/8'`, `'not a time'`, `'2020-01-01T00:00:00Z'`, `'1.2.3'`, `'12'`, `'1.5'`,
	`'true'`, `'maybe'`, `'dns1123Label'`, `'https://example.com'`, `'::'`, `"it's"`, `'say "hi"'`,
	`'#0'`, `'#1'`, `"\x5b"`, `r'['`, `b'x'`, `'` + strings.Repeat("a", 300) + `'`,
}

// TestShapeFamilies checks that a shape judged on one value is not reused where another value
// changes the verdict.
func TestShapeFamilies(t *testing.T) {
	for _, family := range shapeFamilies {
		celtest.ResetCache()
		slots := strings.Count(family, "%s")
		fill := func(v string) string {
			args := make([]any, slots)
			for i := range args {
				args[i] = v
			}
			return fmt.Sprintf(family, args...)
		}
		checkShortcuts(t, fill(`'x'`))
		for _, v := range shapeValues {
			checkShortcuts(t, fill(v))
		}
	}
}

// TestShortcutsTakeCommonConditions guards the speed of validation: the conditions people
// usually write must be answered by a shortcut, without building a program.
func TestShortcutsTakeCommonConditions(t *testing.T) {
	for _, mc := range celtest.RealisticConditions(12, 7) {
		if !quickValid(assumedNew, mc.Expression) {
			t.Errorf("quick check does not take %q", mc.Expression)
		}
		if shape, n, ok := shapeOf(mc.Expression); !ok || !validShape(assumedNew, shape, n) {
			t.Errorf("no valid shape for %q", mc.Expression)
		}
	}
	for _, expr := range []string{
		`has(object.metadata.labels) && object.metadata.labels["app"] == "web"`,
		`object.?metadata.?name.orValue('') == 'x'`,
		`request.operation in ["CREATE", "UPDATE"] && !(request.namespace in ['a', 'b'])`,
	} {
		if !quickValid(assumedNew, expr) {
			t.Errorf("quick check does not take %q", expr)
		}
	}
}

func TestShapeOf(t *testing.T) {
	for _, c := range []struct {
		expr, shape string
		ok          bool
	}{
		{`request.namespace != "a" && x == 'b'`, `request.namespace != "#0" && x == "#1"`, true},
		{`x in ["it's", 'say "hi"', '']`, `x in ["#0", "#1", "#2"]`, true},
		{`request.dryRun`, ``, false},
		{`x == "a\"b"`, ``, false},
		{`x == r"a"`, ``, false},
		{`x == b'a'`, ``, false},
		{`x == """a"""`, ``, false},
		{`x == ''''''`, ``, false},
		{`x == "a" // "`, ``, false},
		{"x.`a b` == 'a'", ``, false},
		{`x == "é"`, ``, false},
		{"x == \"a\tb\"", ``, false},
		{`x == "a`, ``, false},
		{`"a""b"`, `"#0""#1"`, true},
		{`x == "" && y == ""`, `x == "#0" && y == "#1"`, true},
	} {
		shape, _, ok := shapeOf(c.expr)
		if ok != c.ok || shape != c.shape {
			t.Errorf("shapeOf(%q) = %q, %v; want %q, %v", c.expr, shape, ok, c.shape, c.ok)
		}
	}
}

// FuzzCompileShortcuts: compile agrees with the compiler on any text. The shape cache is kept
// between inputs, so a shape judged on one input is reused on later ones.
func FuzzCompileShortcuts(f *testing.F) {
	for _, expr := range shortcutCorpus {
		if len(expr) < 1000 {
			f.Add(expr)
		}
	}
	f.Fuzz(func(t *testing.T, expr string) {
		checkShortcuts(t, expr)
	})
}

// assumedNew is the environment new expressions are compiled in by a server of version 1.37,
// the release whose libraries are linked in.
var assumedNew = NewExpressions(LibrariesMinor)

// BenchmarkBuildCompiler measures what the first compile of a process pays once (the base
// environment itself is cached inside k8s.io/apiserver after its first build).
func BenchmarkBuildCompiler(b *testing.B) {
	for b.Loop() {
		plugincel.NewCompiler(assumedNew.baseSet())
	}
}
