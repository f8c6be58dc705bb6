use super::*;

#[test]
fn suggestions() {
    let known = [
        "fargateProfiles",
        "metadata",
        "selectors",
        "labels",
        "namespace",
    ];
    let s = |k: &str| suggest(k, known.iter().copied());
    assert_eq!(s("fargateProfile").as_deref(), Some("fargateProfiles"));
    assert_eq!(s("Selectors").as_deref(), Some("selectors"));
    assert_eq!(s("lables").as_deref(), Some("labels"));
    assert_eq!(s("nodeGroups"), None);
    assert_eq!(distance("abc", "acb"), 1);
    assert_eq!(distance("", "abc"), 3);
}

#[test]
fn every_table_is_consistent() {
    for (name, t) in [
        ("eksctl", eksctl()),
        ("cloudformation", cloudformation()),
        ("terraform", terraform()),
        ("terraform-aws-eks", terraform_eks_module()),
        ("kubernetes", kubernetes()),
    ] {
        assert!(!t.objects.is_empty(), "{name} is empty");
        assert_eq!(t.problems(), Vec::<String>::new(), "{name}");
        // What the parser reads, it writes back the same.
        assert_eq!(Table::parse(&t.render()).render(), t.render(), "{name}");
    }
}
