'use strict';
// noderedis_lock.js's lock on a connection that speaks RESP3.
exports.make = require('./noderedis_lock.js').makeWith(3);
