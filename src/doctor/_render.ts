/**
 * The doctor's report as one screen of text: a block per home, and in it only what needs the
 * user, each with the command that deals with it. Pure: the commands come from the caller.
 *
 * @module
 */
import { formatBytes, formatTime, plural, visible } from "../text/mod.ts";
import type { DamagedSession, DoctorReport, HomeExamination } from "./_doctor.ts";
import { EXPIRY_WINDOW_DAYS } from "./_doctor.ts";

/** The commands the report tells the user to run, as they run here. */
export interface DoctorCommands {
  /** The command that repairs a session file in place. */
  repair(path: string): string;
  /** The command that archives every home's sessions before a tool's cleanup deletes them. */
  archive(): string;
}

/** Each damaged session: its first finding (and how many more), then the repair command. */
function repairLines(sessions: readonly DamagedSession[], commands: DoctorCommands): string[] {
  return sessions.flatMap((session) => {
    const more = session.findings > 1 ? ` (+${session.findings - 1} more)` : "";
    return [`    ${visible(session.first)}${more}`, `      ${commands.repair(session.path)}`];
  });
}

function homeLines(home: HomeExamination, commands: DoctorCommands): string[] {
  const head = `${home.tool}  ${visible(home.root)}`;
  if (!home.exists) return [`${head}  (not here)`];
  const versions = home.versions.map((v) => `${v.version} (${v.sessions})`).join(", ");
  const lines = [
    `${head}  ${plural(home.sessions, "session")}, ${formatBytes(home.bytes)}` +
    (versions === "" ? "" : `  versions ${versions}`),
  ];
  if (home.unresumable.length > 0) {
    lines.push(`  ${home.tool} would not resume ${plural(home.unresumable.length, "session")}:`);
    lines.push(...repairLines(home.unresumable, commands));
  }
  if (home.passedOver.length > 0) {
    lines.push(
      `  ${home.tool} passes over lines that are not valid in ` +
        `${plural(home.passedOver.length, "session")} (it resumes them as they are; ` +
        "a repair sets the lines aside):",
    );
    lines.push(...repairLines(home.passedOver, commands));
  }
  if (home.drift.length > 0) {
    lines.push(`  record types turnlog has never seen:`);
    for (const drift of home.drift) {
      lines.push(
        `    ${visible(drift.kind)} from version ${drift.version ?? "unknown"}: ` +
          `${plural(drift.lines, "line")} in ${plural(drift.sessions, "session")}, ` +
          `e.g. ${visible(drift.example)}`,
      );
    }
  }
  if (home.fields.length > 0) {
    lines.push(`  fields turnlog has never seen:`);
    for (const field of home.fields) {
      lines.push(
        `    ${visible(field.field)} from version ${field.version ?? "unknown"}: ` +
          `${plural(field.lines, "line")} in ${plural(field.sessions, "session")}, ` +
          `e.g. ${field.examples.map(visible).join(", ")}`,
      );
    }
    if (home.moreFields > 0) lines.push(`    and ${plural(home.moreFields, "more field")}`);
  }
  if (home.retention !== null && home.expiring.length > 0) {
    lines.push(
      `  its cleanup deletes ${plural(home.expiring.length, "session")} within ` +
        `${EXPIRY_WINDOW_DAYS} days (${home.retention.days} days after the last write: ` +
        `${visible(home.retention.source)}):`,
    );
    for (const session of home.expiring) {
      lines.push(
        `    ${visible(session.path)}: last written ${formatTime(session.modified)}, ` +
          `deleted from ${formatTime(session.deletedFrom)}`,
      );
    }
    lines.push(`    keep them: ${commands.archive()}`);
  }
  for (const unreadable of home.unreadable) lines.push(`  not read: ${visible(unreadable)}`);
  return lines;
}

/**
 * The report as text: the homes, then one line saying whether anything needs the user.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderDoctor } from "./mod.ts";
 * const text = renderDoctor({ at: "2026-12-05T00:00:00.000Z", homes: [], needsUser: false }, {
 *   repair: (path) => `turnlog repair --write ${path}`,
 *   archive: () => "turnlog archive",
 * });
 * assert.equal(text, "\n0 homes, 0 sessions, 0 bytes: nothing needs you\n");
 * ```
 */
export function renderDoctor(report: DoctorReport, commands: DoctorCommands): string {
  const lines = report.homes.flatMap((home) => homeLines(home, commands));
  const here = report.homes.filter((home) => home.exists);
  const sessions = here.reduce((sum, home) => sum + home.sessions, 0);
  const bytes = here.reduce((sum, home) => sum + home.bytes, 0);
  lines.push(
    "",
    `${plural(here.length, "home")}, ${plural(sessions, "session")}, ${formatBytes(bytes)}: ` +
      (report.needsUser ? "something above needs you" : "nothing needs you"),
  );
  return lines.join("\n") + "\n";
}
