//! Software reference AQMs (tail drop, RED, CoDel, FQ-CoDel): see spec/reference-aqms.md.
