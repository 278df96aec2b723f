use rust_hdl::prelude::*;
fn w<B: Block>(name: &str, mut b: B) {
    b.connect_all();
    std::fs::create_dir_all(format!("/tmp/blk/{name}")).unwrap();
    std::fs::write(format!("/tmp/blk/{name}/top.v"), generate_verilog(&b)).unwrap();
}
fn main() {
    w("regs", aqm_hdl::pie::regs::PieRegs::<1>::default());
    w("ingress", aqm_hdl::pie::ingress::PieIngress::<1>::default());
    w("egress", aqm_hdl::pie::egress::PieEgress::default());
    w("ctrl", aqm_hdl::pie::controller::PieController::default());
}
