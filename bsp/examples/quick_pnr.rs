use rust_hdl::prelude::*;
fn main() {
    let mut t =
        aqm_bsp::top::BoardPie::<{ aqm_bsp::top::BOARD_CPB }, { aqm_bsp::top::BOARD_NSPC }>::new(
            aqm_bsp::top::BoardRev::V1,
        );
    t.connect_all();
    std::fs::create_dir_all("/tmp/board").unwrap();
    std::fs::write("/tmp/board/top.v", generate_verilog(&t)).unwrap();
    std::fs::write(
        "/tmp/board/top.pcf",
        rust_hdl::fpga::toolchains::icestorm::generate_pcf(&t),
    )
    .unwrap();
}
