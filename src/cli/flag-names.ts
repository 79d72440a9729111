import type { ChoiceNames } from "../client/config/platform-source";

/**
 * How the platform resolver's messages name what the user typed on a command line. The password
 * may come from a prompt, --password-stdin or MATFRAME_PASSWORD; a command only knows it has one.
 */
export const NAMES: ChoiceNames = {
  baseUrl: "--base-url",
  username: "--username",
  password: "its password",
  profile: "--profile",
};
