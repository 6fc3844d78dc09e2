package typecheck

// BuiltinData is the embedded snapshot, for the freshness test.
var BuiltinData = builtinData
