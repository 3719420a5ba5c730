"""Tencent Cloud regions GPU Ledger accepts (those with CVM), and the sites that bill them."""

CHINA_REGIONS = (
    "ap-beijing",
    "ap-chengdu",
    "ap-chongqing",
    "ap-guangzhou",
    "ap-nanjing",
    "ap-shanghai",
    "ap-shanghai-fsi",
    "ap-shenzhen-fsi",
    "ap-beijing-fsi",
)
INTERNATIONAL_REGIONS = (
    "ap-hongkong",
    "ap-taipei",
    "ap-singapore",
    "ap-bangkok",
    "ap-jakarta",
    "ap-seoul",
    "ap-tokyo",
    "ap-mumbai",
    "na-siliconvalley",
    "na-ashburn",
    "na-toronto",
    "eu-frankfurt",
    "sa-saopaulo",
)
REGIONS = frozenset(CHINA_REGIONS + INTERNATIONAL_REGIONS)
