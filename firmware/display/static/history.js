"use strict";
// The hand history and its step-by-step replay (issue 16): to be written.
