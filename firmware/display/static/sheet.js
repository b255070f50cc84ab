"use strict";
// The score sheet on the desk, its players and signatures (issue 16): to be written.
