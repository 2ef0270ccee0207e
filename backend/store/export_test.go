package store

// WriterDSN exposes the writer's connection settings to the benchmarks' raw
// SQLite control, so that the control runs on exactly the store's settings.
var WriterDSN = writerDSN
