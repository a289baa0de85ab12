// How a results store's database is opened for reading, shared by the store (results/store.cpp,
// for `jetchar results`) and the analysis reader (analysis/results_store_reader.cpp), so that both
// read a store the same way: without changing it, even while a sweep is still writing.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace SQLite {
class Database;
}

namespace jetchar::results::schema {

/// "file:" URI of `file` for SQLite (SQLITE_OPEN_URI) with `query`: every byte but unreserved
/// ones and '/' is percent-encoded, so that '?', '#' and '%' in a path stay part of it.
std::string file_uri(const std::filesystem::path& file, std::string_view query);

/// Opens the SQLite database `file` read-only and without leaving a trace. A read-only connection
/// to a WAL database creates -wal and -shm files and, unable to checkpoint, leaves them behind;
/// SQLite's immutable mode opens the file alone, with no locks and no side files. Immutable is right
/// only while nobody writes: a writer (a sweep) keeps the -wal file for as long as it has the store
/// open, and runs not yet checkpointed live in that file, so with a -wal beside the store it is
/// opened plain read-only (its -wal and -shm exist already). The caller checks first that `file`
/// is an SQLite database; SQLite's own exception reports any other failure.
std::unique_ptr<SQLite::Database> open_without_trace(const std::filesystem::path& file);

}  // namespace jetchar::results::schema
