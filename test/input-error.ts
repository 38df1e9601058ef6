// Runs a function that must throw an InputError and returns it (any other outcome fails the test).
import { InputError } from "../src/core/index.ts";

export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (InputError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an InputError");
}
