'use strict';
// noderedis_lock.js's lock with a renew(), which lockstep calls every TTL/3
// while it holds: uuid-lua-watchdog, in JavaScript.
exports.make = require('./noderedis_lock.js').makeWith(2, true);
