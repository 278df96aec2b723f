//! The line card on the Alchitry Cu (iCE40-HX8K-CB132, 100 MHz): the board top around an AQM core,
//! its UART test port and protocol bridge, the pin constraints, and the bitstream flow.

pub mod boards;
pub mod bridge;
pub mod emit;
pub mod flow;
pub mod slack;
pub mod top;
pub mod uart;
