use rust_hdl::prelude::*;
fn w<B: Block>(name: &str, mut b: B) {
    b.connect_all();
    std::fs::create_dir_all(format!("/tmp/blk/{name}")).unwrap();
    std::fs::write(format!("/tmp/blk/{name}/top.v"), generate_verilog(&b)).unwrap();
}
fn main() {
    w(
        "bridge",
        aqm_bsp::bridge::Bridge::<50, 20, 5, 0x50494531, 1024>::default(),
    );
    w("stretch", aqm_bsp::top::Stretch::default());
    w("uartrx", aqm_bsp::uart::UartRx::<100>::default());
}
