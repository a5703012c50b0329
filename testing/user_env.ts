/**
 * The variables that point turnlog at a user's sessions (the tools' homes, turnlog's store, its
 * data folder, archive and catalog), each blanked: a command a test runs with its own `HOME`
 * reads that home alone, not the homes of the user who runs the tests (turnlog reads an empty
 * variable as unset).
 *
 * @module
 */

/** Each variable that names a user's sessions or turnlog's files, blanked. */
export const NO_USER_HOMES: Readonly<Record<string, string>> = {
  CLAUDE_CONFIG_DIR: "",
  CODEX_HOME: "",
  GEMINI_CLI_HOME: "",
  XDG_DATA_HOME: "",
  TURNLOG_SESSIONS_DIR: "",
  TURNLOG_STORE: "",
  TURNLOG_ARCHIVE: "",
  TURNLOG_CATALOG: "",
};
